"""call_read_tools_batch: several reads in one call, each checked against its own schema first.

The argument model is built once the nested authority is known (``args_factory``):
``operations.items`` is a ``oneOf`` over the permitted tools, discriminated on
``tool``, so the whole batch is validated (every operation) before anything runs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, cast

from muxport import READ, Args, Result, ToolContext, ToolError, ToolSpec, answer_dict, tool
from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, WithJsonSchema, create_model

log = logging.getLogger(__name__)

NESTED = [
    "list_sessions",
    "list_windows",
    "list_panes",
    "get_server_info",
    "get_session_info",
    "get_window_info",
    "get_pane_info",
    "capture_pane",
    "capture_since",
    "snapshot_pane",
    "search_panes",
    "find_pane_by_position",
    "get_tmux_variables",
    "show_option",
    "show_environment",
    "show_hooks",
]
MAX_OPERATIONS = 16
ANSWER_CAP = 1_000_000
ENVELOPE = 1_024  # room kept for the answer's own keys


class Operation(Args):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class BatchArgs(Args):
    """The shape the batch receives; the served schema comes from ``batch_args``."""

    operations: list[Operation] = Field(min_length=1, max_length=MAX_OPERATIONS)
    on_error: Literal["stop", "continue"] = "stop"


def _eligible(permitted: list[str]) -> Any:
    def check(value: Any) -> Any:
        name = value.get("tool") if isinstance(value, dict) else None
        if isinstance(name, str) and name not in permitted:
            raise ValueError(
                f"tool {name!r} is not eligible for read batching on this server; nothing was run. "
                f"Batch only these: {', '.join(permitted) or 'none'} (call other tools directly)"
            )
        return value

    return check


def _refuse_all(value: Any) -> Any:
    raise ValueError(
        "no read tools remain in this batch's authority (all were excluded); call tools directly"
    )


def _operation_model(name: str, spec: ToolSpec) -> type[BaseModel]:
    needs_arguments = any(f.is_required() for f in spec.args.model_fields.values())
    arguments: Any = (
        (spec.args, ...) if needs_arguments else (spec.args, Field(default_factory=spec.args))
    )
    fields: dict[str, Any] = {"tool": (Literal[name], ...), "arguments": arguments}
    title = "".join(part.title() for part in name.split("_")) + "Operation"
    model: type[BaseModel] = create_model(title, __base__=Args, **fields)
    return model


class OneOfItems(Args):
    """Keeps ``operations.items`` a ``oneOf`` even when a single tool remains."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        schema = super().model_json_schema(*args, **kwargs)
        operations = schema.get("properties", {}).get("operations", {})
        items = operations.get("items", {})
        if "$ref" in items:
            operations["items"] = {"oneOf": [items]}
        return schema


def batch_args(permitted: Mapping[str, ToolSpec]) -> type[BaseModel]:
    """The served argument model: ``operations`` items are a ``oneOf`` over ``permitted``."""
    names = sorted(permitted)
    models = [_operation_model(name, permitted[name]) for name in names]
    item: Any
    if not models:
        item = Annotated[dict[str, Any], WithJsonSchema({"not": {}}), AfterValidator(_refuse_all)]
    elif len(models) == 1:
        item = Annotated[models[0], BeforeValidator(_eligible(names))]
    else:
        union: Any = Union[tuple(models)]  # noqa: UP007 (a runtime tuple of models)
        item = Annotated[union, Field(discriminator="tool"), BeforeValidator(_eligible(names))]
    fields: dict[str, Any] = {
        "operations": (
            list[item],
            Field(
                min_length=1,
                max_length=MAX_OPERATIONS,
                description="1..16 reads, each {tool, arguments} checked against its tool's schema",
            ),
        ),
        "on_error": (
            Literal["stop", "continue"],
            Field(
                default="stop",
                description="stop (default): end at the first failure; continue: run the rest",
            ),
        ),
    }
    model: type[BaseModel] = create_model("CallReadToolsBatchArgs", __base__=OneOfItems, **fields)
    return model


class Row(BaseModel):
    index: int
    tool: str
    success: bool
    error: str | None = Field(description="the tool error's text, naming the recovery")
    error_code: str | None = Field(default=None, description="the tool error's code")
    result: dict[str, Any] | None = Field(
        description="the tool's answer; null on failure or when cut"
    )
    result_truncated: bool = Field(description="the answer did not fit the batch's 1,000,000 bytes")


class BatchResult(Result):
    results: list[Row]
    succeeded: int
    failed: int
    stopped_at: int | None = Field(description="index of the failure that stopped the batch")
    truncated: bool
    truncated_bytes: int = Field(description="bytes of answers left out to fit 1,000,000 bytes")


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


@tool(
    READ.replace(output_classes=[
        "tmux-metadata", "terminal-content", "process-environment", "configured-command"
    ]),
    title="Call read tools batch",
    nested_authority=NESTED,
    args_factory=batch_args,
)
async def call_read_tools_batch(ctx: ToolContext, args: BatchArgs) -> BatchResult:
    """Run up to 16 inspect reads in one call, each checked before any runs.

    Operations run in order; answers are kept within 1,000,000 bytes.
    """
    rows: list[Row] = []
    used = ENVELOPE
    dropped = 0
    stopped_at = None
    for index, operation in enumerate(args.operations):
        name = operation.tool
        try:
            # the served model (batch_args) holds the tool's own argument model here
            arguments = cast(BaseModel, operation.arguments)
            answer = answer_dict(await ctx.call_nested(name, arguments))
            row = Row(
                index=index,
                tool=name,
                success=True,
                error=None,
                result=answer,
                result_truncated=False,
            )
        except ToolError as exc:
            row = Row(
                index=index,
                tool=name,
                success=False,
                error=exc.message,
                error_code=exc.code,
                result=None,
                result_truncated=False,
            )
        except Exception:
            log.exception("batched %s failed", name)
            row = Row(
                index=index,
                tool=name,
                success=False,
                error_code="internal_error",
                error=f"{name} hit an internal error (a muxport bug); call it directly to retry",
                result=None,
                result_truncated=False,
            )
        cost = size(answer_dict(row))
        if used + cost > ANSWER_CAP and row.result is not None:
            dropped += size(row.result)
            row.result, row.result_truncated = None, True
            cost = size(answer_dict(row))
        used += cost
        rows.append(row)
        if not row.success and args.on_error == "stop":
            stopped_at = index
            break
    failed = sum(not row.success for row in rows)
    notes = []
    if dropped:
        notes.append(
            f"{dropped} bytes of answers were left out (result_truncated rows); "
            "call those tools directly or with smaller max_lines"
        )
    if stopped_at is not None:
        notes.append(f"stopped at operation {stopped_at}; pass on_error: continue to run the rest")
    return BatchResult(
        results=rows,
        succeeded=len(rows) - failed,
        failed=failed,
        stopped_at=stopped_at,
        truncated=bool(dropped),
        truncated_bytes=dropped,
        note="; ".join(notes) or None,
    )


TOOLS = [call_read_tools_batch]

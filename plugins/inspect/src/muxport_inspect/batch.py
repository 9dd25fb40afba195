"""call_read_tools_batch: several reads in one call, each checked before any runs.

The argument model is built once the nested authority is known (``args_factory``):
each operation is ``{"tool": <one of the permitted reads>, "arguments": {...}}``, and
the tool checks every operation's arguments against that tool's own argument model
before anything runs, so an error reads exactly as the nested tool's own would. The
served schema says so in one line instead of inlining every nested schema
(docs/client-fit.md).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from muxport import (
    Args,
    Capability,
    InvalidArgument,
    Result,
    ToolContext,
    ToolError,
    answer_dict,
    tool,
)
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    create_model,
)

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
ROW_ROOM = 512  # room an earlier read's lines leave for each read still to come
ARGUMENTS = "that tool's arguments"


class Operation(Args):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict, description=ARGUMENTS)


class BatchArgs(Args):
    """The shape the batch receives; the served model comes from ``batch_args``."""

    operations: list[Operation] = Field(min_length=1, max_length=MAX_OPERATIONS)
    on_error: Literal["stop", "continue"] = "stop"


def _eligible(permitted: list[str]) -> Any:
    def check(value: Any) -> Any:
        if isinstance(value, str) and value not in permitted:
            raise ValueError(
                f"tool {value!r} is not eligible for read batching on this server; nothing was "
                f"run. Batch only these: {', '.join(permitted) or 'none'} (call other tools "
                "directly)"
            )
        return value

    return check


def _refuse_all(value: Any) -> Any:
    raise ValueError(
        "no read tools remain in this batch's authority (all were excluded); call tools directly"
    )


def batch_args(permitted: Mapping[str, object]) -> type[BaseModel]:
    """The served argument model: each operation names one of ``permitted`` (an enum; the
    core passes each permitted tool's declaration, only the names are read here)."""
    names = sorted(permitted)
    choices: Any = Literal.__getitem__(tuple(names)) if names else str
    check: Any = BeforeValidator(_eligible(names)) if names else AfterValidator(_refuse_all)
    name_type: Any = Annotated[choices, check]
    operation: type[BaseModel] = create_model(
        "Operation",
        __base__=Operation,
        tool=(name_type, Field()),
    )
    rows: Any = list.__class_getitem__(operation)
    fields: dict[str, Any] = {
        "operations": (
            rows,
            Field(min_length=1, max_length=MAX_OPERATIONS, description="run in order"),
        ),
        "on_error": (
            Literal["stop", "continue"],
            Field(
                default="stop",
                description="at a failure",
            ),
        ),
    }
    model: type[BaseModel] = create_model("CallReadToolsBatchArgs", __base__=Args, **fields)
    return model


def checked(ctx: ToolContext, operations: list[Operation]) -> list[BaseModel]:
    """Every operation's arguments as its tool's own model; the first bad one refuses all."""
    models = []
    for index, operation in enumerate(operations):
        spec = ctx.nested_spec(operation.tool)
        try:
            models.append(spec.args.model_validate(operation.arguments))
        except ValidationError as exc:
            error = InvalidArgument.from_validation(operation.tool, exc, spec.args)
            raise InvalidArgument(f"operation {index}: {error.message}; nothing was run") from None
    return models


class Row(BaseModel):
    index: int
    success: bool
    error: str | None = Field(default=None, description="the tool error's text")
    error_code: str | None = Field(default=None, description="the tool error's code")
    result: dict[str, Any] | None = Field(
        default=None, description="the tool's answer; absent on failure or when cut"
    )
    result_truncated: bool = Field(
        default=False, description="the answer did not fit the batch's answer budget"
    )


class BatchResult(Result):
    results: list[Row]
    succeeded: int
    failed: int
    stopped_at: int | None = Field(
        default=None, description="index of the failure that stopped the batch"
    )
    truncated: bool = False
    truncated_chars: int = Field(default=0, description="characters of answers left out")


def size(value: Any) -> int:
    """Characters of ``value`` as compact JSON: what the answer budget counts."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


@tool(
    Capability.READ.replace(output_classes=[
        "tmux-metadata", "terminal-content", "process-environment", "configured-command"
    ]),
    title="Call read tools batch",
    nested_authority=NESTED,
    args_factory=batch_args,
)
async def call_read_tools_batch(ctx: ToolContext, args: BatchArgs) -> BatchResult:
    """Run up to 16 reads in one call, in order, each checked before any runs.

    They share one answer budget.
    """
    models = checked(ctx, args.operations)
    rows: list[Row] = []
    used = ENVELOPE
    dropped = 0
    stopped_at = None
    budget = ctx.answer_budget  # the batch's one answer budget, shared by every read
    cap = min(ANSWER_CAP, budget.limit) if budget is not None else ANSWER_CAP
    for index, (operation, arguments) in enumerate(zip(args.operations, models, strict=True)):
        name = operation.tool
        if budget is not None:  # the rows so far, and room for the rows still to come
            budget.used = used + ROW_ROOM * (len(models) - index - 1)
        try:
            answer = answer_dict(await ctx.call_nested(name, arguments))
            row = Row(
                index=index,
                success=True,
                error=None,
                result=answer,
                result_truncated=False,
            )
        except ToolError as exc:
            row = Row(
                index=index,
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
                success=False,
                error_code="internal_error",
                error=f"{name} hit an internal error (a muxport bug); call it directly to retry",
                result=None,
                result_truncated=False,
            )
        cost = size(answer_dict(row))
        if used + cost > cap and row.result is not None:
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
            f"{dropped} characters of answers were left out to keep the batch within {cap:,} "
            "characters "
            "(result_truncated rows); call those tools directly or with smaller max_lines"
        )
    if stopped_at is not None:
        notes.append(f"stopped at operation {stopped_at}; pass on_error: continue to run the rest")
    return BatchResult(
        results=rows,
        succeeded=len(rows) - failed,
        failed=failed,
        stopped_at=stopped_at,
        truncated=bool(dropped),
        truncated_chars=dropped,
        note="; ".join(notes) or None,
    )


TOOLS = [call_read_tools_batch]

"""send_keys and send_keys_batch: key names and literal text, each send checked
(docs/architecture.md, typing into panes)."""

from __future__ import annotations

from typing import Annotated, Literal

from muxport import Args, Capability, PaneId, Refused, Result, ToolContext, ToolError, tool
from muxport.policy import check_input
from pydantic import BaseModel, Field, WithJsonSchema, field_validator

from muxport_execute.run.table import RunTable

# tmux refuses a command line over 16 KiB ("command too long"); keep well below it.
MAX_KEY_BYTES = 12_000

Key = Annotated[str, Field(min_length=1, max_length=4096)]
KEY_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 4096}
KEYS_DOC = "key names (Enter, C-c, Up) or strings"
# Validation turns one bare string into a list; the published schema says both are fine.
KeyList = Annotated[
    list[Key],
    WithJsonSchema({
        "anyOf": [
            {"type": "array", "items": KEY_SCHEMA, "minItems": 1, "maxItems": 128},
            KEY_SCHEMA,
        ],
        "description": KEYS_DOC,
    }),
]


class KeysArgs(Args):
    pane_id: PaneId
    keys: KeyList = Field(min_length=1, max_length=128, description=KEYS_DOC)
    literal: bool = Field(default=False, description="type every item as text")
    enter: bool = Field(default=False, description="press Enter after")

    @field_validator("keys", mode="before")
    @classmethod
    def bare_string(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @field_validator("keys")
    @classmethod
    def fits(cls, value: list[str]) -> list[str]:
        if sum(len(k.encode()) for k in value) > MAX_KEY_BYTES:
            raise ValueError(
                f"keys total more than {MAX_KEY_BYTES} bytes; send long text with paste_text"
            )
        return value


class KeysSent(Result):
    pane_id: str
    sent: int = Field(description="items sent, enter's Enter included")
    resolved_pane_ids: list[str] = Field(
        description="every pane the keys reach"
    )


def send_commands(args: KeysArgs) -> list[tuple[str, ...]]:
    """The send-keys commands of one send; option-shaped keys stay keys after ``--``."""
    target = ("send-keys", "-t", args.pane_id)
    commands: list[tuple[str, ...]]
    if args.literal:
        commands = [(*target, "-l", "--", key) for key in args.keys]
    else:
        commands = [(*target, "--", *args.keys)]
    if args.enter:
        commands.append((*target, "Enter"))
    return commands


def described(args: KeysArgs) -> str:
    """The keys as the person asked about an attended pane reads them (docs/asking.md)."""
    said = " ".join(repr(key) for key in args.keys)
    what = f"the text {said}" if args.literal else f"the keys {said}"
    return what + (" then Enter" if args.enter else "")


async def send(runs: RunTable, ctx: ToolContext, args: KeysArgs) -> KeysSent:
    cohort = await check_input(ctx, args.pane_id, what=described(args))
    await ctx.tmux.run(*send_commands(args))
    ctx.input_sent()  # a later row's question must not replay this one (docs/asking.md)
    for pane_id in cohort.pane_ids:  # a run clears this server's own text first
        runs.pending.typed(pane_id, args.keys, args.literal, args.enter)
    return KeysSent(
        pane_id=args.pane_id,
        sent=len(args.keys) + int(args.enter),
        resolved_pane_ids=cohort.pane_ids,
    )


@tool(Capability.INPUT, title="Send keys")
async def send_keys(runs: RunTable, ctx: ToolContext, args: KeysArgs) -> KeysSent:
    """Send key names (Enter, C-c, Up) or, with literal, text to a pane; reports who received them.

    Refused, nothing typed, when a receiving pane is the caller, dead, input-disabled, in
    copy mode or attended.
    """
    return await send(runs, ctx, args)


class BatchArgs(Args):
    operations: list[KeysArgs] = Field(min_length=1, max_length=64)
    on_error: Literal["stop", "continue"] = Field(
        default="stop", description="after a failed row"
    )


class RowResult(BaseModel):
    index: int
    pane_id: str
    success: bool
    resolved_pane_ids: list[str]
    error: str | None = None
    error_code: str | None = None


class BatchResult(Result):
    count: int = Field(description="rows attempted")
    completed: int = Field(description="rows sent successfully")
    stopped_at: int | None = Field(description="index of the failed row that stopped the batch")
    results: list[RowResult]


@tool(
    Capability.INPUT.replace(may_return_untrusted_content=True), title="Send keys to several panes"
)
async def send_keys_batch(runs: RunTable, ctx: ToolContext, args: BatchArgs) -> BatchResult:
    """Send several send_keys rows in order, each checked as send_keys is."""
    if not ctx.is_selected("send_keys"):
        raise Refused(
            "send_keys_batch sends each row as send_keys, which this server's tool selection "
            "excludes; ask for send_keys to be enabled (LIBTMUX_TOOLS / LIBTMUX_EXCLUDE_TOOLS)"
        )
    results: list[RowResult] = []
    stopped_at = None
    for index, row in enumerate(args.operations):
        try:
            sent = await send(runs, ctx, row)
        except ToolError as failure:
            results.append(RowResult(
                index=index, pane_id=row.pane_id, success=False,
                resolved_pane_ids=list(failure.data.get("cohort", [])),
                error=failure.message, error_code=failure.code,
            ))
            if args.on_error == "stop":
                stopped_at = index
                break
            continue
        results.append(RowResult(
            index=index, pane_id=row.pane_id, success=True,
            resolved_pane_ids=sent.resolved_pane_ids,
        ))
    done = sum(r.success for r in results)
    note = None
    if stopped_at is not None:
        note = f"row {stopped_at} failed and stopped the batch; rows after it were not sent"
    return BatchResult(count=len(results), completed=done, stopped_at=stopped_at, results=results,
                       note=note)


TOOLS = [send_keys, send_keys_batch]

"""select_window, select_pane, select_layout, move_window, swap_pane: arranging what exists.

Each change and its read-back go in ONE tmux invocation.
"""

from __future__ import annotations

from muxport import (
    Args,
    InvalidArgument,
    PaneId,
    Result,
    SessionId,
    TmuxFailed,
    ToolContext,
    WindowId,
    tool,
)
from muxport.formats import Pane, Window, apply
from pydantic import Field

from muxport_manage import layouts
from muxport_manage.common import NAMED, STRUCTURAL
from muxport_manage.naming import PaneAnswer, WindowAnswer


class SelectWindowArgs(Args):
    window_id: WindowId


class SelectPaneArgs(Args):
    pane_id: PaneId


class SelectLayoutArgs(Args):
    window_id: WindowId
    layout: str = Field(
        min_length=1,
        max_length=16_384,
        description="a preset, its prefix, or a layout string",
    )


class LayoutAnswer(Result):
    window_id: str
    layout: str = Field(description="the full preset name or the layout string")


class MoveWindowArgs(Args):
    window_id: WindowId
    session_id: SessionId = Field(description="the destination")
    index: int | None = Field(
        default=None, ge=0, le=100_000, description="default: next free"
    )


class MoveAnswer(Result):
    window_id: str
    session_id: str
    index: int


class SwapPaneArgs(Args):
    pane_id: PaneId
    other_pane_id: PaneId


class SwapAnswer(Result):
    pane_id: str
    other_pane_id: str


@tool(NAMED, title="Select a window")
async def select_window(ctx: ToolContext, args: SelectWindowArgs) -> WindowAnswer:
    """Make one window its session's current window (what an attached client shows)."""
    select = ("select-window", "-t", args.window_id)
    return await apply(ctx.tmux, select, WindowAnswer, Window.FIELDS, args.window_id)


@tool(NAMED, title="Select a pane")
async def select_pane(ctx: ToolContext, args: SelectPaneArgs) -> PaneAnswer:
    """Make one pane the active pane of its window."""
    select = ("select-pane", "-t", args.pane_id)
    caller = ctx.caller.marks(args.pane_id)
    return await apply(ctx.tmux, select, PaneAnswer, Pane.FIELDS, args.pane_id, caller=caller)


@tool(STRUCTURAL.replace(idempotent=True), title="Select a layout")
async def select_layout(ctx: ToolContext, args: SelectLayoutArgs) -> LayoutAnswer:
    """Arrange a window's panes by a preset layout or a layout string from get_window_info.

    Presets: even-horizontal, even-vertical, main-horizontal, main-vertical, tiled.
    """
    layout, note = layouts.resolve(args.layout)
    out = await ctx.tmux.run(
        ("select-layout", "-t", args.window_id, "--", layout),
        ("display-message", "-p", "-t", args.window_id, "#{window_layout}"),
    )
    now = out.lines[-1] if out.lines else ""
    applied = f"the window's layout string is now {now} (select_layout restores it)"
    return LayoutAnswer(
        window_id=args.window_id, layout=layout, note=f"{note}; {applied}" if note else applied
    )


@tool(STRUCTURAL, title="Move a window")
async def move_window(ctx: ToolContext, args: MoveWindowArgs) -> MoveAnswer:
    """Move one window into a session, at index or the next free one.

    Moving a session's only window ends that session.
    """
    # list-panes and has-session fail on a missing target (display-message would not).
    before = await ctx.tmux.run(
        ("list-panes", "-t", args.window_id, "-F", "#{session_id} #{session_windows}"),
        ("has-session", "-t", args.session_id),
    )
    source, source_windows = before.lines[0].split(" ")
    destination = f"{args.session_id}:{'' if args.index is None else args.index}"
    try:
        out = await ctx.tmux.run(
            ("move-window", "-d", "-s", args.window_id, "-t", destination),
            ("display-message", "-p", "-t", args.window_id, "#{session_id} #{window_index}"),
        )
    except TmuxFailed as exc:
        if "in use" in exc.message or "same index" in exc.message:
            raise InvalidArgument(
                f"index {args.index} of session {args.session_id} is taken; omit index for the "
                "next free one, or call list_windows to see the indexes in use",
                delivery="observed",
            ) from exc
        raise
    session_id, index = out.lines[-1].split(" ")
    note = None
    if source != args.session_id and source_windows == "1":
        note = f"session {source} ended: this was its only window"
    return MoveAnswer(window_id=args.window_id, session_id=session_id, index=int(index), note=note)


@tool(STRUCTURAL, title="Swap two panes")
async def swap_pane(ctx: ToolContext, args: SwapPaneArgs) -> SwapAnswer:
    """Swap two panes' places, also across windows; the active pane stays the same."""
    if args.pane_id == args.other_pane_id:
        raise InvalidArgument(
            f"pane_id and other_pane_id are both {args.pane_id}; pass two different panes "
            "(list_panes shows them)"
        )
    where = "#{pane_id} is in #{window_id} at index #{pane_index}"
    out = await ctx.tmux.run(
        ("swap-pane", "-d", "-s", args.pane_id, "-t", args.other_pane_id),
        ("display-message", "-p", "-t", args.pane_id, where),
        ("display-message", "-p", "-t", args.other_pane_id, where),
    )
    return SwapAnswer(
        pane_id=args.pane_id, other_pane_id=args.other_pane_id, note="; ".join(out.lines) or None
    )


TOOLS = [select_window, select_pane, select_layout, move_window, swap_pane]

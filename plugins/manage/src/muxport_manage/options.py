"""set_mouse_enabled, set_history_limit: two options, each written and read back at once."""

from __future__ import annotations

from muxport import Args, Result, SessionId, ToolContext, tool
from pydantic import Field

from muxport_manage.common import OPTION

MAX_HISTORY = 1_000_000  # lines per pane; more is memory a pane can hold for a long time


class MouseArgs(Args):
    enabled: bool = Field(description="true: tmux handles the mouse")


class MouseAnswer(Result):
    enabled: bool


class HistoryArgs(Args):
    session_id: SessionId
    lines: int = Field(
        ge=0, le=MAX_HISTORY, description="per pane"
    )


class HistoryAnswer(Result):
    session_id: str
    lines: int


@tool(OPTION, title="Turn mouse support on or off")
async def set_mouse_enabled(ctx: ToolContext, args: MouseArgs) -> MouseAnswer:
    """Turn tmux mouse support on or off server-wide (`set -g mouse`); a session's own wins."""
    out = await ctx.tmux.run(
        ("set-option", "-g", "mouse", "on" if args.enabled else "off"),
        ("show-options", "-gv", "mouse"),
    )
    return MouseAnswer(enabled=out.lines[-1].strip() == "on")


@tool(OPTION, title="Set a session's history limit")
async def set_history_limit(ctx: ToolContext, args: HistoryArgs) -> HistoryAnswer:
    """Set the scrollback lines new panes of one session keep; existing panes keep theirs."""
    out = await ctx.tmux.run(
        ("has-session", "-t", args.session_id),  # set-option's own error names no tool
        ("set-option", "-t", args.session_id, "history-limit", str(args.lines)),
        ("show-options", "-v", "-t", args.session_id, "history-limit"),
    )
    return HistoryAnswer(
        session_id=args.session_id,
        lines=int(out.lines[-1]),
        note="applies to panes created from now on; existing panes keep their limit",
    )


TOOLS = [set_mouse_enabled, set_history_limit]

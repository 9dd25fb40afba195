"""kill_pane, kill_window, kill_session, clear_pane_scrollback: deleting tmux state.

The kill tools never take the caller pane (or what holds it) without confirm_self,
and never the tmux server itself.
"""

from __future__ import annotations

from muxport import Args, Capability, PaneId, Result, SessionId, ToolContext, WindowId, tool
from pydantic import Field

from muxport_teardown.guard import check_caller, check_server_survives, topology

KILL = Capability.DELETE
# clearing twice: the same
CLEAR = Capability.DELETE.replace(tmux_effects=["delete"], idempotent=True)
ConfirmSelf = Field(
    default=False,
    description="even muxport's own pane",
)


class PaneArgs(Args):
    pane_id: PaneId


class KillPaneArgs(Args):
    pane_id: PaneId
    confirm_self: bool = ConfirmSelf


class KillWindowArgs(Args):
    window_id: WindowId
    confirm_self: bool = ConfirmSelf


class KillSessionArgs(Args):
    session_id: SessionId
    confirm_self: bool = ConfirmSelf


class Cleared(Result):
    pane_id: str
    cleared: bool


class PaneKilled(Result):
    pane_id: str
    killed: bool
    window_ended: bool = Field(description="the window ended with it")


class WindowKilled(Result):
    window_id: str
    killed: bool
    session_ended: bool = Field(
        description="the session ended with it"
    )


class SessionKilled(Result):
    session_id: str
    killed: bool


def _notes(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


@tool(CLEAR, title="Clear a pane's scrollback")
async def clear_pane_scrollback(ctx: ToolContext, args: PaneArgs) -> Cleared:
    """Delete one pane's scrollback history; the visible screen stays."""
    out = await ctx.tmux.run(
        ("clear-history", "-t", args.pane_id),
        ("display-message", "-p", "-t", args.pane_id, "#{history_size}"),
    )
    left = int(out.lines[-1] or 0)
    note = None if left == 0 else f"{left} lines arrived in the history right after clearing"
    return Cleared(pane_id=args.pane_id, cleared=left == 0, note=note)


@tool(KILL, title="Kill a pane")
async def kill_pane(ctx: ToolContext, args: KillPaneArgs) -> PaneKilled:
    """Kill one pane and its process; its window ends with its last pane.

    Refused for muxport's own pane unless confirm_self.
    """
    top = await topology(ctx)
    held = top.of("pane", args.pane_id)
    await check_caller(ctx, held, f"pane {args.pane_id}", args.confirm_self)
    window_ended = held[0].window_panes == 1
    ending = {p.session for p in held if window_ended and p.session_windows == 1}
    note = check_server_survives(top, ending)
    await ctx.tmux.run(("kill-pane", "-t", args.pane_id))
    ended = f"session(s) {', '.join(sorted(ending))} ended with it" if ending else None
    return PaneKilled(
        pane_id=args.pane_id, killed=True, window_ended=window_ended, note=_notes(ended, note)
    )


@tool(KILL, title="Kill a window")
async def kill_window(ctx: ToolContext, args: KillWindowArgs) -> WindowKilled:
    """Kill one window and its panes; its session ends with its last window.

    Refused when it holds muxport's own pane unless confirm_self.
    """
    top = await topology(ctx)
    held = top.of("window", args.window_id)
    await check_caller(ctx, held, f"window {args.window_id}", args.confirm_self)
    ending = {p.session for p in held if p.session_windows == 1}
    note = check_server_survives(top, ending)
    await ctx.tmux.run(("kill-window", "-t", args.window_id))
    return WindowKilled(
        window_id=args.window_id, killed=True, session_ended=bool(ending), note=note
    )


@tool(KILL, title="Kill a session")
async def kill_session(ctx: ToolContext, args: KillSessionArgs) -> SessionKilled:
    """Kill one session with its windows and panes (windows linked elsewhere survive).

    Refused when it holds muxport's own pane unless confirm_self.
    """
    top = await topology(ctx)
    held = top.of("session", args.session_id)
    await check_caller(ctx, held, f"session {args.session_id}", args.confirm_self)
    note = check_server_survives(top, {args.session_id})
    await ctx.tmux.run(("kill-session", "-t", args.session_id))
    return SessionKilled(session_id=args.session_id, killed=True, note=note)


TOOLS = [clear_pane_scrollback, kill_pane, kill_window, kill_session]

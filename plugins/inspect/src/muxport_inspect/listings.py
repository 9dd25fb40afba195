"""Listings: sessions, windows, panes."""

from __future__ import annotations

from muxport import Args, NotFound, Result, ServerGone, SessionId, ToolContext, WindowId, tool
from muxport.formats import Pane, Session, Window, fmt, parse, records
from pydantic import Field, model_validator

from muxport_inspect.common import METADATA, scope

NO_SERVER_NOTE = (
    "no tmux server is running on this socket; create_session starts one (or run tmux)"
)


class NoArgs(Args):
    pass


async def read_sessions(ctx: ToolContext) -> list[Session]:
    out = await ctx.tmux.run(("list-sessions", "-F", fmt(Session.FIELDS)))
    return [parse(Session, Session.FIELDS, line) for line in records(out.stdout)]


async def read_windows(ctx: ToolContext, session_id: str | None) -> list[Window]:
    where = ["-t", session_id] if session_id else ["-a"]
    out = await ctx.tmux.run(("list-windows", *where, "-F", fmt(Window.FIELDS)))
    return [parse(Window, Window.FIELDS, line) for line in records(out.stdout)]


async def read_panes(ctx: ToolContext, session_id: str | None, window_id: str | None) -> list[Pane]:
    out = await ctx.tmux.run(("list-panes", *scope(session_id, window_id), "-F", fmt(Pane.FIELDS)))
    return [Pane.read(line, ctx.caller) for line in records(out.stdout)]


class SessionList(Result):
    count: int
    sessions: list[Session]


class ListWindowsArgs(Args):
    session_id: SessionId | None = None
    session_name: str | None = Field(default=None, max_length=256,
                                     description="instead of session_id")

    @model_validator(mode="after")
    def one_selector(self) -> ListWindowsArgs:
        if self.session_id and self.session_name:
            raise ValueError("pass session_id or session_name, not both")
        return self


class WindowList(Result):
    count: int
    windows: list[Window]


class ListPanesArgs(Args):
    session_id: SessionId | None = None
    window_id: WindowId | None = None


class PaneList(Result):
    count: int
    panes: list[Pane]


@tool(METADATA, title="List sessions")
async def list_sessions(ctx: ToolContext, args: NoArgs) -> SessionList:
    """List the sessions with their id, name, windows and clients."""
    try:
        sessions = await read_sessions(ctx)
    except ServerGone:
        return SessionList(count=0, sessions=[], note=NO_SERVER_NOTE)
    note = None if sessions else "the server has no sessions; create_session makes one"
    return SessionList(count=len(sessions), sessions=sessions, note=note)


async def session_by_name(ctx: ToolContext, name: str) -> str:
    for session in await read_sessions(ctx):
        if session.name == name:
            return session.id
    raise NotFound(f"no session named {name!r}; call list_sessions for the names that exist",
                   data={"kind": "session", "target": name})


@tool(METADATA, title="List windows")
async def list_windows(ctx: ToolContext, args: ListWindowsArgs) -> WindowList:
    """List windows (all, or one session's): id, index, name, size, panes."""
    session_id = args.session_id
    if args.session_name is not None:
        session_id = await session_by_name(ctx, args.session_name)
    try:
        windows = await read_windows(ctx, session_id)
    except ServerGone:
        if session_id:
            raise
        return WindowList(count=0, windows=[], note=NO_SERVER_NOTE)
    return WindowList(count=len(windows), windows=windows)


@tool(METADATA, title="List panes")
async def list_panes(ctx: ToolContext, args: ListPanesArgs) -> PaneList:
    """List panes (all, one session's or one window's): command, path, size, caller mark."""
    # Both given: the window's panes as seen from that session (a window may be linked
    # into several), so a window outside the session yields none instead of being ignored.
    window_id = None if args.session_id else args.window_id
    try:
        panes = await read_panes(ctx, args.session_id, window_id)
    except ServerGone:
        if args.session_id or args.window_id:
            raise
        return PaneList(count=0, panes=[], note=NO_SERVER_NOTE)
    note = None
    if args.session_id and args.window_id:
        panes = [p for p in panes if p.window_id == args.window_id]
        if not panes:
            note = (f"window {args.window_id} is not in session {args.session_id}; "
                    "call list_windows with that session_id for its windows")
    return PaneList(count=len(panes), panes=panes, note=note)


TOOLS = [list_sessions, list_windows, list_panes]

"""Info tools: one server, session, window or pane described in full, and panes by corner."""

from __future__ import annotations

from typing import Annotated, Literal

from muxport import (
    END,
    PANE_FIELDS,
    SEP,
    SESSION_FIELDS,
    WINDOW_FIELDS,
    Args,
    Pane,
    PaneId,
    Result,
    ServerGone,
    SessionId,
    ToolContext,
    Window,
    WindowId,
    fmt,
    parse,
    parse_pane,
    records,
    tool,
    unescape,
)
from pydantic import BaseModel, BeforeValidator, Field

from muxport_inspect.common import METADATA
from muxport_inspect.listings import NoArgs


class Client(BaseModel):
    tty: str = Field(description="the client's terminal; empty for control-mode clients")
    session_id: str
    window_id: str
    pane_id: str
    readonly: bool
    control_mode: bool


class ServerInfo(Result):
    running: bool
    version: str = Field(description="tmux version, or 'unknown' when no server runs")
    socket_path: str
    pid: int | None
    sessions: int
    windows: int
    panes: int
    clients: list[Client]
    caller_pane_id: str | None = Field(description="the pane muxport runs in, when proven")
    inside_this_server: bool | None = Field(description="null when the relation is unproven")


CLIENT_FIELDS = {
    "tty": "client_tty",
    "session_id": "session_id",
    "window_id": "window_id",
    "pane_id": "pane_id",
    "readonly": "client_readonly",
    "control_mode": "client_control_mode",
}


@tool(METADATA, title="Get server info")
async def get_server_info(ctx: ToolContext, args: NoArgs) -> ServerInfo:
    """Describe the served tmux server: version, pid, socket, counts, clients, caller relation."""
    relation = ctx.caller.relation
    inside = None if relation == "unknown" else relation == "inside"
    try:
        out = await ctx.tmux.run(
            ("display-message", "-p", "#{version}" + SEP + "#{pid}" + END),
            ("list-sessions", "-F", "s" + END),
            ("list-windows", "-a", "-F", "w" + END),
            ("list-panes", "-a", "-F", "p" + END),
            ("list-clients", "-F", fmt(CLIENT_FIELDS)),
        )
    except ServerGone:
        asked = await ctx.tmux.run(("-V",), check=False)
        text = asked.stdout.strip().removeprefix("tmux ") if asked.returncode == 0 else ""
        return ServerInfo(
            running=False,
            version=text or "unknown",
            socket_path=ctx.tmux.socket_path,
            pid=None,
            sessions=0,
            windows=0,
            panes=0,
            clients=[],
            caller_pane_id=ctx.caller.pane_id,
            inside_this_server=inside,
            note="no tmux server is running on this socket; create_session starts one",
        )
    rows = records(out.stdout)
    version, pid = rows[0].split(SEP)
    kinds = [r for r in rows[1:] if r in ("s", "w", "p")]
    clients = [parse(Client, CLIENT_FIELDS, r) for r in rows[1:] if SEP in r]
    return ServerInfo(
        running=True,
        version=version,
        socket_path=ctx.tmux.socket_path,
        pid=int(pid),
        sessions=kinds.count("s"),
        windows=kinds.count("w"),
        panes=kinds.count("p"),
        clients=clients,
        caller_pane_id=ctx.caller.pane_id,
        inside_this_server=inside,
    )


class SessionArgs(Args):
    session_id: SessionId


class SessionDetail(Result):
    id: str
    name: str
    attached: int
    windows: list[Window] = Field(description="every window of the session")
    created: int
    path: str = Field(description="the session's start directory")
    active_window_id: str


@tool(METADATA, title="Get session info")
async def get_session_info(ctx: ToolContext, args: SessionArgs) -> SessionDetail:
    """Describe one session by id: name, clients, start path, active window and its windows."""
    head = {**SESSION_FIELDS, "active_window_id": "window_id", "path": "session_path"}
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", args.session_id, fmt(head)),
        ("list-windows", "-t", args.session_id, "-F", fmt(WINDOW_FIELDS)),
    )
    rows = records(out.stdout)
    values = dict(zip(head, (unescape(v) for v in rows[0].split(SEP)), strict=False))
    windows = [parse(Window, WINDOW_FIELDS, r) for r in rows[1:]]
    return SessionDetail(
        id=values["id"],
        name=values["name"],
        attached=int(values["attached"] or 0),
        windows=windows,
        created=int(values["created"] or 0),
        path=values["path"],
        active_window_id=values["active_window_id"],
    )


class WindowArgs(Args):
    window_id: WindowId


class WindowDetail(Result):
    id: str
    index: int
    name: str
    session_id: str
    active: bool
    panes: list[Pane] = Field(description="every pane of the window")
    width: int
    height: int
    zoomed: bool
    layout: str = Field(description="checksummed layout string; select_layout accepts it back")


@tool(METADATA, title="Get window info")
async def get_window_info(ctx: ToolContext, args: WindowArgs) -> WindowDetail:
    """Describe one window by id: size, zoom, panes, and a layout select_layout accepts back."""
    head = {**WINDOW_FIELDS, "layout": "window_layout"}
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", args.window_id, fmt(head)),
        ("list-panes", "-t", args.window_id, "-F", fmt(PANE_FIELDS)),
    )
    rows = records(out.stdout)
    window = parse(Window, WINDOW_FIELDS, rows[0])
    layout = rows[0].split(SEP)[-1]
    panes = [parse_pane(r, ctx.caller) for r in rows[1:]]
    data = window.model_dump()
    data.update(panes=panes, layout=layout)
    return WindowDetail.model_validate(data)


class PaneArgs(Args):
    pane_id: PaneId


class PaneDetail(Pane, Result):
    history_lines: int = Field(description="lines scrolled into the history")
    history_limit: int
    exit_status: int | None = Field(default=None, description="set when the pane is dead")
    zoomed: bool = Field(description="the pane's window is zoomed")


PANE_EXTRA = {
    "history_lines": "history_size",
    "history_limit": "history_limit",
    "zoomed": "window_zoomed_flag",
    "exit_status": "pane_dead_status",
}


@tool(METADATA, title="Get pane info")
async def get_pane_info(ctx: ToolContext, args: PaneArgs) -> PaneDetail:
    """Describe one pane by id: command, path, size, process, history, exit status."""
    wanted = {**PANE_EXTRA, **PANE_FIELDS}
    out = await ctx.tmux.run(("display-message", "-p", "-t", args.pane_id, fmt(wanted)))
    rows = records(out.stdout)
    fields = rows[0].split(SEP, 4) if rows else []
    if len(fields) < 5 or not fields[4].startswith("%"):
        raise await ctx.tmux.missing("pane", args.pane_id)
    extra, rest = fields[:4], fields[4]
    pane = parse_pane(rest, ctx.caller)
    status = extra[3]
    return PaneDetail(
        **pane.model_dump(),
        history_lines=int(extra[0] or 0),
        history_limit=int(extra[1] or 0),
        zoomed=extra[2] == "1",
        exit_status=int(status) if pane.dead and status else None,
    )


Position = Literal["top-left", "top-right", "bottom-left", "bottom-right"]


class PositionArgs(Args):
    window_id: WindowId
    position: Annotated[
        Position,
        BeforeValidator(lambda v: v.strip().lower().replace("_", "-") if isinstance(v, str) else v),
        Field(description="which corner: top-left, top-right, bottom-left or bottom-right"),
    ]


class CornerPane(Pane, Result):
    """The pane record, with the ``note`` every answer may carry."""


GEOMETRY = (
    "#{pane_left}" + SEP + "#{pane_top}" + SEP + "#{pane_right}" + SEP + "#{pane_bottom}" + SEP
)


@tool(METADATA, title="Find pane by position")
async def find_pane_by_position(ctx: ToolContext, args: PositionArgs) -> CornerPane:
    """Find the pane in a corner (top-left, top-right, bottom-left, bottom-right) of a window."""
    out = await ctx.tmux.run(
        ("list-panes", "-t", args.window_id, "-F", GEOMETRY + fmt(PANE_FIELDS)),
    )
    candidates: list[tuple[tuple[int, ...], Pane]] = []
    for row in records(out.stdout):
        left, top, right, bottom, rest = row.split(SEP, 4)
        l_, t_, r_, b_ = int(left), int(top), int(right), int(bottom)
        vertical = t_ if args.position.startswith("top") else -b_
        horizontal = l_ if args.position.endswith("left") else -r_
        # a zoomed pane spans every corner; the smallest pane is the one the layout puts there
        candidates.append(
            ((vertical, horizontal, (r_ - l_) * (b_ - t_)), parse_pane(rest, ctx.caller))
        )
    candidates.sort(key=lambda item: item[0])
    return CornerPane(**candidates[0][1].model_dump())


TOOLS = [get_server_info, get_session_info, get_window_info, get_pane_info, find_pane_by_position]

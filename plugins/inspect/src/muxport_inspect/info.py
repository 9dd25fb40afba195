"""Info tools: one server, session, window or pane described in full, and panes by corner."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal, TypeVar

from muxport import Args, PaneId, Result, ServerGone, SessionId, ToolContext, WindowId, tool
from muxport.formats import Pane, Session, Window, fmt, parse, records
from pydantic import BaseModel, BeforeValidator, Field

from muxport_inspect.common import METADATA
from muxport_inspect.listings import NoArgs


class Client(BaseModel):
    tty: str = Field(description="the client's terminal; empty for control-mode clients")
    session_id: str
    window_id: str
    pane_id: str
    readonly: bool = False
    control_mode: bool = False


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


SERVER_FIELDS = {"version": "version", "pid": "pid"}
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
    """Describe the tmux server: version, pid, socket, counts, clients, caller relation."""
    relation = ctx.caller.relation
    inside = None if relation == "unknown" else relation == "inside"
    try:
        out = await ctx.tmux.run(
            ("display-message", "-p", fmt(SERVER_FIELDS)),
            ("list-sessions", "-F", fmt(["session_id"])),
            ("list-windows", "-a", "-F", fmt(["window_id"])),
            ("list-panes", "-a", "-F", fmt(["pane_id"])),
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
    kinds = [r[0][:1] for r in rows[1:] if len(r) == 1]  # each object's id: $1, @2 or %3
    clients = [parse(Client, CLIENT_FIELDS, r) for r in rows[1:] if len(r) > 1]
    return parse(
        ServerInfo,
        SERVER_FIELDS,
        rows[0],
        running=True,
        socket_path=ctx.tmux.socket_path,
        sessions=kinds.count("$"),
        windows=kinds.count("@"),
        panes=kinds.count("%"),
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
    """Describe one session: name, clients, start path, active window, windows."""
    head = {**Session.FIELDS, "active_window_id": "window_id", "path": "session_path"}
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", args.session_id, fmt(head)),
        ("list-windows", "-t", args.session_id, "-F", fmt(Window.FIELDS)),
    )
    rows = records(out.stdout)
    windows = [parse(Window, Window.FIELDS, r) for r in rows[1:]]
    return parse(SessionDetail, head, rows[0], windows=windows)  # the list, not the count


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
    zoomed: bool = False
    layout: str = Field(description="checksummed layout string; select_layout accepts it back")


@tool(METADATA, title="Get window info")
async def get_window_info(ctx: ToolContext, args: WindowArgs) -> WindowDetail:
    """Describe one window: size, zoom, panes, and a layout select_layout takes back."""
    head = {**Window.FIELDS, "layout": "window_layout"}
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", args.window_id, fmt(head)),
        ("list-panes", "-t", args.window_id, "-F", fmt(Pane.FIELDS)),
    )
    rows = records(out.stdout)
    panes = [Pane.read(r, ctx.caller) for r in rows[1:]]
    return parse(WindowDetail, head, rows[0], panes=panes)  # the list, not the count


class PaneArgs(Args):
    pane_id: PaneId


class PaneDetail(Pane, Result):
    history_lines: int = Field(description="lines scrolled into the history")
    history_limit: int
    exit_status: int | None = Field(default=None, description="set when the pane is dead")
    zoomed: bool = Field(default=False, description="the pane's window is zoomed")


PANE_DETAIL = {
    **Pane.FIELDS,
    "history_lines": "history_size",
    "history_limit": "history_limit",
    "zoomed": "window_zoomed_flag",
    "exit_status": "pane_dead_status",  # empty (null) while the pane lives
}
P = TypeVar("P", bound=Pane)


def parse_pane_as(
    model: type[P], fields: dict[str, str], row: Sequence[str], ctx: ToolContext
) -> P:
    """``parse_pane`` for a pane model with more fields: the record, with its caller mark."""
    pane = parse(model, fields, row, caller=None)
    return pane.model_copy(update={"caller": ctx.caller.marks(pane.id)})


@tool(METADATA, title="Get pane info")
async def get_pane_info(ctx: ToolContext, args: PaneArgs) -> PaneDetail:
    """Describe one pane: command, path, size, process, history, exit status."""
    out = await ctx.tmux.run(("display-message", "-p", "-t", args.pane_id, fmt(PANE_DETAIL)))
    rows = records(out.stdout)
    if not rows or not rows[0][0].startswith("%"):  # tmux 3.3a: empty fields for a missing pane
        raise await ctx.tmux.missing("pane", args.pane_id)
    return parse_pane_as(PaneDetail, PANE_DETAIL, rows[0], ctx)


Position = Literal["top-left", "top-right", "bottom-left", "bottom-right"]


class PositionArgs(Args):
    window_id: WindowId
    position: Annotated[
        Position,
        BeforeValidator(lambda v: v.strip().lower().replace("_", "-") if isinstance(v, str) else v),
        Field(),
    ]


class CornerPane(Pane, Result):
    pass  # the pane record, with the note every answer may carry


class PlacedPane(Pane):
    """A pane with its edges, in cells from the window's top-left corner."""

    left: int
    top: int
    right: int
    bottom: int


PLACED_FIELDS = {
    **Pane.FIELDS, "left": "pane_left", "top": "pane_top", "right": "pane_right",
    "bottom": "pane_bottom",
}


@tool(METADATA, title="Find pane by position")
async def find_pane_by_position(ctx: ToolContext, args: PositionArgs) -> CornerPane:
    """Find the pane in a corner of a window."""
    out = await ctx.tmux.run(("list-panes", "-t", args.window_id, "-F", fmt(PLACED_FIELDS)))
    placed = [parse_pane_as(PlacedPane, PLACED_FIELDS, r, ctx) for r in records(out.stdout)]

    def rank(p: PlacedPane) -> tuple[int, int, int]:
        vertical = p.top if args.position.startswith("top") else -p.bottom
        horizontal = p.left if args.position.endswith("left") else -p.right
        # a zoomed pane spans every corner; the smallest pane is the one the layout puts there
        return vertical, horizontal, (p.right - p.left) * (p.bottom - p.top)

    corner = min(placed, key=rank)
    return CornerPane(**corner.model_dump(include=set(Pane.model_fields)))


TOOLS = [get_server_info, get_session_info, get_window_info, get_pane_info, find_pane_by_position]

"""rename_session, rename_window, set_pane_title: names tmux keeps exactly as asked.

Each rename and its read-back go in ONE tmux invocation, so the answer shows what
tmux stored at that moment. ``--`` keeps a name like ``-x`` from being read as a flag.
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
from muxport.formats import Pane, Session, Window, apply, literal

from muxport_manage.common import NAMED, PaneTitle, SessionName, WindowName


class RenameSessionArgs(Args):
    session_id: SessionId
    new_name: SessionName


class RenameWindowArgs(Args):
    window_id: WindowId
    new_name: WindowName


class SetPaneTitleArgs(Args):
    pane_id: PaneId
    title: PaneTitle


class SessionAnswer(Session, Result):
    pass


class WindowAnswer(Window, Result):
    pass


class PaneAnswer(Pane, Result):
    pass


@tool(NAMED, title="Rename a session", input_literalization={"new_name": "double-hash-once"})
async def rename_session(ctx: ToolContext, args: RenameSessionArgs) -> SessionAnswer:
    """Rename one session to exactly new_name ('#' kept literally)."""
    try:
        rename = ("rename-session", "-t", args.session_id, "--", literal(args.new_name))
        return await apply(ctx.tmux, rename, SessionAnswer, Session.FIELDS, args.session_id)
    except TmuxFailed as exc:
        if "duplicate session" in exc.message:
            raise InvalidArgument(
                f"a session named {args.new_name!r} already exists; pick another name "
                "(list_sessions shows the names in use)"
            ) from exc
        raise


@tool(NAMED, title="Rename a window", input_literalization={"new_name": "double-hash-once"})
async def rename_window(ctx: ToolContext, args: RenameWindowArgs) -> WindowAnswer:
    """Rename one window to exactly new_name ('#' kept literally); automatic renaming goes off."""
    rename = ("rename-window", "-t", args.window_id, "--", literal(args.new_name))
    return await apply(ctx.tmux, rename, WindowAnswer, Window.FIELDS, args.window_id)


@tool(NAMED, title="Set a pane title", input_literalization={"title": "double-hash-once"})
async def set_pane_title(ctx: ToolContext, args: SetPaneTitleArgs) -> PaneAnswer:
    """Set one pane's title to exactly title ('#' kept literally); its program may change it."""
    retitle = ("select-pane", "-t", args.pane_id, "-T", literal(args.title))
    caller = ctx.caller.marks(args.pane_id)
    pane = await apply(ctx.tmux, retitle, PaneAnswer, Pane.FIELDS, args.pane_id, caller=caller)
    if pane.title != args.title:
        pane.note = (
            f"tmux shows the title {pane.title!r} instead; a program in the pane may "
            "have set its own (call get_pane_info to check again)"
        )
    return pane


TOOLS = [rename_session, rename_window, set_pane_title]

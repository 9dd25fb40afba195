"""What a kill would take with it, and the caller-pane rule (docs/architecture.md).

One tmux invocation reads every pane's place (pane, window, session, counts) and
the server's exit-empty option, so the decision rests on one moment.
"""

from __future__ import annotations

from dataclasses import dataclass

from muxport import NotFound, Refused, ToolContext
from muxport.formats import fmt, records

PLACE = fmt(("pane_id", "window_id", "session_id", "window_panes", "session_windows",
             "pane_current_command"))
KINDS = {"pane": "list_panes", "window": "list_windows", "session": "list_sessions"}


@dataclass(frozen=True)
class Place:
    pane: str
    window: str
    session: str
    window_panes: int
    session_windows: int
    command: str = ""


@dataclass(frozen=True)
class Topology:
    places: list[Place]
    exit_empty: bool

    def of(self, kind: str, target: str) -> list[Place]:
        """The places of every pane that the pane, window or session ``target`` holds."""
        found = [p for p in self.places if getattr(p, kind) == target]
        if not found:
            count = len({getattr(p, kind) for p in self.places})
            raise NotFound.counted(kind, target, KINDS[kind], count)
        return found

    def sessions(self) -> set[str]:
        return {p.session for p in self.places}


async def topology(ctx: ToolContext) -> Topology:
    out = await ctx.tmux.run(
        ("list-panes", "-a", "-F", PLACE),
        ("show-options", "-sv", "exit-empty"),
    )
    places = []
    for record in records(out.stdout):
        pane, window, session, panes, windows, command = record
        places.append(Place(pane, window, session, int(panes), int(windows), command))
    return Topology(places, exit_empty=out.lines[-1].strip() == "on")


def question(held: list[Place], what: str, caller_pane: str) -> str:
    """What the person is asked: the target, what runs in it, and what killing it ends."""
    running = ", ".join(sorted({p.command or "?" for p in held}))
    count = f"its {len(held)} panes" if len(held) > 1 else "its pane"
    holds = "" if what == f"pane {caller_pane}" else f" with {count} including pane {caller_pane}"
    return (f"muxport asks: kill {what}{holds} (running {running})? Pane {caller_pane} is the "
            "pane this MCP server runs in: killing it ends muxport and the assistant's tmux "
            "link in this conversation.")


async def check_caller(ctx: ToolContext, held: list[Place], what: str,
                       confirm_self: bool) -> None:
    """Refuse to kill the caller pane, or what holds it, unless ``confirm_self`` or the
    person, asked, allows it (docs/asking.md)."""
    if confirm_self:
        return
    caller = ctx.caller
    if not caller.proven:
        raise Refused(
            f"muxport cannot prove whether it runs inside this tmux server ({caller.how}), so "
            f"{what} might hold its own pane; pass confirm_self: true to kill it anyway",
            code="caller_uncertain",
        )
    if caller.pane_id is not None and any(p.pane == caller.pane_id for p in held):
        whose = "is" if what == f"pane {caller.pane_id}" else "holds"
        refused = Refused(
            f"{what} {whose} pane {caller.pane_id}, the pane this MCP server runs in: killing it "
            "ends muxport and this conversation's tmux link. Pass confirm_self: true if that is "
            "intended, or pick another target (list_panes marks the caller pane)",
            code="caller_pane",
        )
        await ctx.ask_person(refused, question(held, what, caller.pane_id))


def check_server_survives(top: Topology, ending: set[str]) -> str | None:
    """Refuse a kill that would end the last session of a server that exits when empty."""
    if not ending or top.sessions() - ending:
        return None
    if top.exit_empty:
        raise Refused(
            "this would end the server's last session, and this tmux server exits when it has "
            "no sessions (exit-empty on); muxport never ends the server. Create another "
            "session first (create_session), then kill this one",
            code="would_end_server",
        )
    return "no sessions are left; the tmux server keeps running (exit-empty is off)"

"""The input checks (docs/architecture.md, typing into panes): who would receive input
sent to a pane, and may it be sent?

One fresh observation (the target window's panes and every client, read in ONE
tmux invocation) works out the cohort: the target plus, when the target's effective
``synchronize-panes`` is on, every pane of its window whose effective option is on
(a pane-level value overrides the window's; ``#{synchronize-panes}`` in a pane
format is that effective value). The whole send is refused if any member is the
caller, dead, input-disabled, in a mode or attended; the person may lift the last of
these, when the client can ask them (docs/asking.md).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from muxport._internal.asking import ask_person
from muxport._internal.context import ToolContext
from muxport._internal.errors import Refused
from muxport._internal.objects import SEP, fmt, parse, records

PANE_FORMAT = {
    "id": "pane_id", "window_id": "window_id", "active": "pane_active", "dead": "pane_dead",
    "input_off": "pane_input_off", "in_mode": "pane_in_mode", "sync": "synchronize-panes",
    "zoomed": "window_zoomed_flag", "mode": "pane_mode", "command": "pane_current_command",
    "pid": "pane_pid",
}
# In list-clients the session, window and pane formats are those the client is showing.
CLIENT_FORMAT = {
    "control": "client_control_mode", "readonly": "client_readonly", "flags": "client_flags",
    "session": "client_session", "window_id": "window_id", "pane_id": "pane_id",
    "tty": "client_tty", "name": "client_name",
}


class Cohort(BaseModel):
    """Every pane that would receive the input, the target first."""

    pane_ids: list[str] = Field(description="panes that would receive the input, target first")
    # read in the same observation, so run_shell_command needs no separate query for it
    command: str = Field(default="", description="the target pane's foreground command")
    pane_pid: str = Field(default="", description="the target pane's process id")


class _Pane(BaseModel):
    id: str
    window_id: str
    active: bool
    dead: bool
    input_off: bool
    in_mode: bool
    sync: bool  # the pane's effective synchronize-panes
    zoomed: bool
    mode: str
    command: str
    pid: str


class _Client(BaseModel):
    control: bool
    readonly: bool
    flags: str
    session: str
    window_id: str
    pane_id: str
    tty: str
    name: str

    @property
    def can_type(self) -> bool:
        """A person's keystrokes land through this client (attached, read-write, not control)."""
        flags = self.flags.split(",")
        control = self.control or "control-mode" in flags
        readonly = self.readonly or "read-only" in flags
        return bool(self.session) and not control and not readonly

    @property
    def label(self) -> str:
        return self.tty or self.name or "a client"


def _receivers(panes: list[_Pane], target: _Pane, paste: bool) -> list[_Pane]:
    """The target, then every sibling whose effective synchronize-panes is on (sorted by id).

    This is the configured membership, a superset of what tmux 3.3a delivers right now
    (it skips siblings in a mode, dead or hidden by zoom): those may change before the
    keys land, so they are checked like the target.
    """
    if paste or not target.sync:
        return [target]
    siblings = [p for p in panes if p.id != target.id and p.sync]
    siblings.sort(key=lambda p: int(p.id[1:]))
    return [target, *siblings]


def _refuse(message: str, reason: str, pane_id: str, cohort: list[str]) -> Refused:
    return Refused(
        message, delivery="not_sent",
        data={"reason": reason, "pane_id": pane_id, "cohort": cohort},
    )


def _check_pane(ctx: ToolContext, pane: _Pane, clients: list[_Client], target: str,
                cohort: list[str]) -> tuple[Refused, str] | None:
    """Raise what no one may lift; return the attended refusal (and by whom) a person may."""
    via = "" if pane.id == target else f" (it receives input to {target} through synchronize-panes)"
    if ctx.caller.relation == "inside" and pane.id == ctx.caller.pane_id:
        raise _refuse(
            f"pane {pane.id} is the pane muxport itself runs in{via}; input there would type into "
            "this session; target another pane (list_panes marks the caller with caller: true)",
            "caller", pane.id, cohort)
    if pane.dead:
        raise _refuse(
            f"pane {pane.id} is dead (its program exited){via}; respawn_pane restarts it, "
            "or target another pane from list_panes", "dead", pane.id, cohort)
    if pane.input_off:
        raise _refuse(
            f"pane {pane.id} has input disabled{via}; a person can enable it (select-pane -e); "
            "target another pane from list_panes", "input_off", pane.id, cohort)
    if pane.in_mode:
        mode = pane.mode or "a mode"
        raise _refuse(
            f"pane {pane.id} is in {mode}{via}; muxport never leaves a mode for you: leave it "
            "yourself or target another pane; list_panes shows in_mode", "in_mode", pane.id, cohort)
    for client in clients:
        if client.can_type and pane.active and client.window_id == pane.window_id:
            return _refuse(
                f"pane {pane.id} is attended: it is the active pane of window {pane.window_id} "
                f"shown by the read-write client {client.label}{via}, where a person's keystrokes "
                "land; target a pane nobody is looking at (split_window or create_window make one, "
                "list_panes shows the rest)", "attended", pane.id, cohort), client.label
    return None


def _question(attended: list[tuple[_Pane, str]], target: str, what: str) -> str:
    panes = "; ".join(f"pane {p.id} (running {p.command or '?'}, shown on {who})"
                      for p, who in attended)
    sending = what or "input"
    via = "" if attended[0][0].id == target else f" through synchronize-panes from {target}"
    return (f"muxport asks: send {sending} to {panes}{via}? A person is looking at it: "
            "what they type would mix with this input.")


async def check_input(
    ctx: ToolContext, pane_id: str, *, paste: bool = False, exactly_one: bool = False,
    what: str = "",
) -> Cohort:
    """Work out who would receive input sent to ``pane_id``; raise ``Refused`` unless all may.

    ``paste``: only the target receives (paste-buffer ignores synchronize-panes).
    ``exactly_one``: framed commands refuse a cohort larger than the target.
    ``what``: the input, as the person asked about an attended pane reads it ("the keys
    'ls' Enter"); a client that can ask the person lifts that refusal (docs/asking.md).
    """
    out = await ctx.tmux.run(
        ("list-panes", "-t", pane_id, "-F", "P" + SEP + fmt(PANE_FORMAT)),
        ("list-clients", "-F", "C" + SEP + fmt(CLIENT_FORMAT)),
    )
    panes: list[_Pane] = []
    clients: list[_Client] = []
    for record in records(out.stdout):
        kind, rest = record[0], record[1:]
        if kind == "P":
            panes.append(parse(_Pane, PANE_FORMAT, rest))
        elif kind == "C":
            clients.append(parse(_Client, CLIENT_FORMAT, rest))
    target = next((p for p in panes if p.id == pane_id), None)
    if target is None:  # the window changed between resolution and listing
        raise Refused(f"pane {pane_id} moved while it was checked; call list_panes and try again",
                      retryable=True, data={"reason": "changed", "pane_id": pane_id, "cohort": []})
    receivers = _receivers(panes, target, paste)
    cohort = [p.id for p in receivers]
    if not ctx.caller.proven:
        raise _refuse(
            f"not sending to {pane_id}: muxport cannot prove which pane it runs in "
            f"({ctx.caller.how}), so input tools fail closed; restart muxport with TMUX_PANE "
            "set (or outside tmux); tmux://capabilities shows the caller relation",
            "caller_unproven", pane_id, cohort)
    attended = []
    for pane in receivers:
        found = _check_pane(ctx, pane, clients, pane_id, cohort)
        if found is not None:
            attended.append((pane, *found))
    if exactly_one and len(cohort) > 1:
        others = ", ".join(cohort[1:])
        raise _refuse(
            f"a framed command needs exactly one receiving pane, but synchronize-panes would also "
            f"send it to {others}; set_synchronize_panes with enabled false on window "
            f"{target.window_id}, or target a pane of another window",
            "synchronized", pane_id, cohort)
    if attended:
        await ask_person(attended[0][1], _question(
            [(pane, who) for pane, _refused, who in attended], pane_id, what),
            about="attended " + " ".join(pane.id for pane, _r, _w in attended))
    return Cohort(pane_ids=cohort, command=target.command, pane_pid=target.pid)

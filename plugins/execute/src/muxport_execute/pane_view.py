"""What a run's watcher reads from tmux about its pane: one invocation per look.

``probe`` is the cheap liveness check (is it the pane and the process we typed into);
``observe`` adds the whole joined capture and the facts that tell whether the screen
was rewritten: the cursor row (rows below it that are not blank mean output moved the
cursor up) and the alternate screen's saved cursor (it changes when a program entered
the alternate screen, whose content is lost when it leaves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from muxport import Tmux, classify
from muxport.formats import fmt, head

Gone = Literal["pane_gone", "server_gone"]
State = Literal["alive", Gone]
PROBE = fmt(
    (
        "pane_dead", "pane_pid", "cursor_y", "pane_height", "alternate_saved_x",
        "alternate_saved_y", "pane_current_command",
    )
)


@dataclass(frozen=True)
class Observation:
    state: State
    lines: list[str]
    command: str = ""
    alternate: str = ""  # the alternate screen's saved cursor, "x,y"
    rows_below_cursor: bool = False  # text below the cursor: the screen was rewritten


def gone_state(stderr: str) -> State | None:
    fault = classify(stderr)
    return "server_gone" if fault == "gone" else "pane_gone" if fault == "missing" else None


def _fields(stdout: str) -> tuple[list[str], list[str]]:
    """The PROBE values (the saved cursor joined as "x,y") and the lines printed after."""
    found, body = head(stdout)
    found += [""] * (7 - len(found))
    text = body.removesuffix("\n")
    fields = [*found[:4], f"{found[4]},{found[5]}", found[6]]
    return fields, text.split("\n") if text else []


def _state(fields: list[str], pane_pid: str) -> State:
    if fields[0] == "1" or (pane_pid and fields[1] != pane_pid):
        return "pane_gone"  # dead (remain-on-exit) or respawned: not the shell we typed into
    return "alive"


async def probe(tmux: Tmux, pane_id: str, pane_pid: str) -> State:
    out = await tmux.run(("display-message", "-p", "-t", pane_id, PROBE), check=False)
    if out.returncode != 0:
        state = gone_state(out.stderr)
        if state is None:
            raise tmux.failure(out)
        return state
    return _state(_fields(out.stdout)[0], pane_pid)


def _below(lines: list[str], cursor_y: str, height: str) -> bool:
    if not (cursor_y.isdigit() and height.isdigit()):
        return False
    below = int(height) - 1 - int(cursor_y)
    return below > 0 and any(row.strip() for row in lines[len(lines) - below :])


async def observe(tmux: Tmux, pane_id: str, pane_pid: str) -> Observation:
    """The pane's state and its whole joined capture, in one tmux invocation."""
    out = await tmux.run(
        ("display-message", "-p", "-t", pane_id, PROBE),
        ("capture-pane", "-p", "-J", "-t", pane_id, "-S", "-"),
        check=False,
    )
    if out.returncode != 0:
        state = gone_state(out.stderr)
        if state is None:
            raise tmux.failure(out)
        return Observation(state, [])
    fields, rest = _fields(out.stdout)
    return Observation(
        _state(fields, pane_pid),
        rest,
        command=fields[5],
        alternate=fields[4],
        rows_below_cursor=_below(rest, fields[2], fields[3]),
    )

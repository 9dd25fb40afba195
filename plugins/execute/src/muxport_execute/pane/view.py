"""What the pane says, read from tmux: one table of the facts the execute toolset reads
about a pane, one way to ask for them (``display-message -p``, each value
``#{q:}``-quoted so that any character reads back exactly: docs/tmux-facts.md, "Format
output"), and the looks built on it, one tmux invocation each.

A look that needs more than the facts (the capture after them, input typed in the same
invocation) puts ``ask`` first in its ``tmux.run`` and reads the facts back with
``answer``, which returns the text printed after them too.

``probe`` is the cheap liveness check (is it the pane and the process we typed into);
``observe`` adds the whole joined capture and the facts that tell whether the screen
was rewritten: the cursor row (rows below it that are not blank mean output moved the
cursor up) and the alternate screen's saved cursor (it changes when a program entered
the alternate screen, whose content is lost when it leaves). ``read_line`` is the
cursor row, split at the cursor, for the line checks (pane/line_state.py).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Literal

from muxport import Tmux, classify
from muxport.formats import fmt, head

Fact = Literal[
    "pid", "command", "tty", "pipe", "dead", "session", "alternate_on", "saved_x", "saved_y",
    "cursor_x", "cursor_y", "height", "width", "history_size", "history_limit",
]
VARIABLES: dict[Fact, str] = {
    "pid": "pane_pid",  # the pane's first process
    "command": "pane_current_command",  # the foreground program, as tmux names it
    "tty": "pane_tty",
    "pipe": "pane_pipe",  # 1 while a pipe-pane is open
    "dead": "pane_dead",  # 1 for a dead pane kept by remain-on-exit
    "session": "session_id",
    "alternate_on": "alternate_on",
    "saved_x": "alternate_saved_x",  # the cursor the alternate screen saved
    "saved_y": "alternate_saved_y",
    "cursor_x": "cursor_x",
    "cursor_y": "cursor_y",
    "height": "pane_height",
    "width": "pane_width",
    "history_size": "history_size",  # lines scrolled off the screen, kept
    "history_limit": "history_limit",
}
Facts = dict[Fact, str]


def ask(pane_id: str, facts: tuple[Fact, ...]) -> tuple[str, ...]:
    """The tmux command printing ``facts`` of ``pane_id``."""
    return ("display-message", "-p", "-t", pane_id, fmt(VARIABLES[f] for f in facts))


def answer(stdout: str, facts: tuple[Fact, ...]) -> tuple[Facts, str]:
    """The facts ``ask`` printed (a missing one reads "") and the text printed after them."""
    found, rest = head(stdout)
    values = [*found, *[""] * len(facts)]
    return dict(zip(facts, values, strict=False)), rest


async def read(tmux: Tmux, pane_id: str, facts: tuple[Fact, ...]) -> Facts:
    """``facts`` of ``pane_id``, in one tmux invocation."""
    out = await tmux.run(ask(pane_id, facts))
    return answer(out.stdout, facts)[0]


Gone = Literal["pane_gone", "server_gone"]
State = Literal["alive", Gone]
PROBE: tuple[Fact, ...] = (
    "dead", "pid", "cursor_y", "height", "saved_x", "saved_y", "command", "history_size",
    "history_limit",
)
LINE: tuple[Fact, ...] = ("cursor_x", "cursor_y", "tty", "command", "pid", "width")


@dataclass(frozen=True)
class Observation:
    state: State
    lines: list[str]
    command: str = ""
    alternate: str = ""  # the alternate screen's saved cursor, "x,y"
    rows_below_cursor: bool = False  # text below the cursor: the screen was rewritten
    history_full: bool = False  # the history drops its oldest lines: output may outgrow it


def gone_state(stderr: str) -> State | None:
    fault = classify(stderr)
    return "server_gone" if fault == "gone" else "pane_gone" if fault == "missing" else None


def _state(facts: Facts, pane_pid: str) -> State:
    if facts["dead"] == "1" or (pane_pid and facts["pid"] != pane_pid):
        return "pane_gone"  # dead (remain-on-exit) or respawned: not the shell we typed into
    return "alive"


async def probe(tmux: Tmux, pane_id: str, pane_pid: str) -> State:
    out = await tmux.run(ask(pane_id, PROBE), check=False)
    if out.returncode != 0:
        state = gone_state(out.stderr)
        if state is None:
            raise tmux.failure(out)
        return state
    return _state(answer(out.stdout, PROBE)[0], pane_pid)


def _full(size: str, limit: str) -> bool:
    """Whether the history has reached its limit: tmux then drops the oldest tenth at once,
    so a full one holds between nine tenths of the limit and the limit."""
    if not (size.isdigit() and limit.isdigit()):
        return False
    return int(size) >= int(limit) - int(limit) // 10 - 1


def _below(lines: list[str], cursor_y: str, height: str) -> bool:
    if not (cursor_y.isdigit() and height.isdigit()):
        return False
    below = int(height) - 1 - int(cursor_y)
    return below > 0 and any(row.strip() for row in lines[len(lines) - below :])


async def observe(tmux: Tmux, pane_id: str, pane_pid: str) -> Observation:
    """The pane's state and its whole joined capture, in one tmux invocation."""
    out = await tmux.run(
        ask(pane_id, PROBE),
        ("capture-pane", "-p", "-J", "-t", pane_id, "-S", "-"),
        check=False,
    )
    if out.returncode != 0:
        state = gone_state(out.stderr)
        if state is None:
            raise tmux.failure(out)
        return Observation(state, [])
    facts, body = answer(out.stdout, PROBE)
    text = body.removesuffix("\n")
    lines = text.split("\n") if text else []
    return Observation(
        _state(facts, pane_pid),
        lines,
        command=facts["command"],
        alternate=f"{facts['saved_x']},{facts['saved_y']}",
        rows_below_cursor=_below(lines, facts["cursor_y"], facts["height"]),
        history_full=_full(facts["history_size"], facts["history_limit"]),
    )


@dataclass(frozen=True)
class Line:
    """The pane's cursor row, split at the cursor, and what runs there."""

    left: str
    right: str
    above: str
    tty: str  # "": a far host's (--ssh), whose terminal and /proc are not this machine's
    command: str
    pid: str = ""  # the pane's first process ("": a far host's)
    room: int = 0  # cells from the cursor to the row's end (0: not known)


def _cells(text: str, width: int) -> tuple[str, str]:
    """``text`` split after ``width`` terminal cells (wide characters take two)."""
    used = 0
    for index, char in enumerate(text):
        if used >= width:
            return text[:index], text[index:]
        used += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return text + " " * max(0, width - used), ""


async def read_line(tmux: Tmux, pane_id: str) -> Line:
    """The cursor row and the row above it, in one tmux invocation."""
    out = await tmux.run(
        ask(pane_id, LINE),
        ("capture-pane", "-p", "-t", pane_id),
    )
    facts, body = answer(out.stdout, LINE)
    x, y = (int(v) if v.isdigit() else 0 for v in (facts["cursor_x"], facts["cursor_y"]))
    text = body.removesuffix("\n")
    rows = text.split("\n") if text else []
    row = rows[y] if y < len(rows) else ""
    left, right = _cells(row, x)
    above = rows[y - 1] if 0 < y <= len(rows) else ""
    # the line checks (pane/line_state.py) read /proc and termios for the pid and tty: a far
    # host's would name unrelated processes here (docs/run-outcomes.md, "A server on
    # another host"), so they see neither and judge from the screen alone
    tty, pid = (facts["tty"], facts["pid"]) if tmux.host.local else ("", "")
    room = int(facts["width"]) - x if facts["width"].isdigit() else 0
    return Line(left, right.rstrip(), above.rstrip(), tty, facts["command"], pid, room)

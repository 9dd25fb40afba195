"""What the execute toolset asks tmux about one pane: one table of the facts it reads,
one way to ask (``display-message -p``, each value ``#{q:}``-quoted so that any
character reads back exactly: docs/tmux-facts.md, "Format output") and one reader.

A look that needs more than the facts (the capture after them, input typed in the
same invocation) puts ``ask`` first in its ``tmux.run`` and reads the facts back with
``answer``, which returns the text printed after them too.
"""

from __future__ import annotations

from typing import Literal

from muxport import Tmux, fmt, head

Fact = Literal[
    "pid", "command", "tty", "pipe", "dead", "session", "alternate_on", "saved_x", "saved_y",
    "cursor_x", "cursor_y", "height",
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

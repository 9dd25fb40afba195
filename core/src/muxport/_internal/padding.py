"""Joined captures of tmux 3.2a, made to read as on 3.3a and newer, less trailing spaces
(docs/tmux-facts.md, "Versions").

``capture-pane -J`` on 3.2a prints each line up to the cells tmux allocated for it
(``gl->cellsize``, grid.c ``grid_string_cells``), padded with spaces; 3.3a stops at the
cells written (``gl->cellused``). How far a line is padded changes as tmux allocates, so
the same line would read differently from one look to the next (cursors, searches and
waits hash and compare lines). On such a server each joined capture of an invocation is
framed by marker commands, and the lines between the markers lose their trailing spaces:
every read then sees a line the same way, at the price of the spaces a program printed at
the end of a line (padding and those cannot be told apart).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace

from muxport._internal.facts import TmuxResult, version_key
from muxport._internal.hookguard import command_name

# tmux 3.3a stops a joined line at its last written cell (grid.c, gl->cellused)
TRIMS_JOINED = (3, 3, "a")
TOKEN = f"--muxport-capture-{secrets.token_hex(8)}"  # printable: no tmux version escapes it
# list-commands -F prints the format once per command listed (has-session: one line), and
# has no after-hook: the markers fire nothing a read-only tool would have to check
OPEN = ("list-commands", "-F", TOKEN + "<", "has-session")
CLOSE = ("list-commands", "-F", TOKEN + ">", "has-session")


def pads(server_version: str) -> bool:
    """Whether this server pads joined captures (a known version before 3.3a)."""
    return bool(server_version) and version_key(server_version) < TRIMS_JOINED


def _joined(command: Sequence[str]) -> bool:
    if not command or command_name(str(command[0])) != "capture-pane":
        return False
    flags = [str(arg) for arg in command[1:] if str(arg).startswith("-") and str(arg) != "-"]
    return any("J" in flag for flag in flags)


def marked(commands: Sequence[Sequence[str]]) -> tuple[Sequence[str], ...] | None:
    """``commands`` with each joined capture between the markers (None: there is none)."""
    if not any(_joined(command) for command in commands):
        return None
    sent: list[Sequence[str]] = []
    for command in commands:
        sent.extend((OPEN, command, CLOSE) if _joined(command) else (command,))
    return tuple(sent)


def trimmed(result: TmuxResult) -> TmuxResult:
    """``result`` of ``marked`` commands: without the markers' lines, and the lines between
    them without trailing spaces (a capture cut short by a failure: up to the end)."""
    kept: list[str] = []
    inside = False
    for line in result.stdout.split("\n"):
        if line in (TOKEN + "<", TOKEN + ">"):
            inside = line == TOKEN + "<"
            continue
        kept.append(line.rstrip(" ") if inside else line)
    return replace(result, stdout="\n".join(kept))

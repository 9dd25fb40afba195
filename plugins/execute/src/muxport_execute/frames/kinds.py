"""The table of frame kinds (docs/runs-and-waits.md, "Frame kinds"): each kind registers
itself here with its name, when it applies to a pane, how its strategy is built (whose
``send`` returns its view of the run's processes, frames/sight.py) and its line
patterns. The choice (frames/choose.py), the driver (run/driver.py) and every extract
(frames/base.py) ask this table, and the answer (run/answer.py) the run's view; none
names a kind.

The built-in kinds, local (frames/local.py) and typed (frames/typed.py), register when
the ``frames`` package is imported (frames/__init__.py); a new kind registers the same way
and needs no edit of the driver, the answer or the choice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from muxport_execute.frames.strategy import Strategy
    from muxport_execute.host.far_input import FarLooks
    from muxport_execute.pane.line_state import PendingInput

Kind = Literal["posix", "fish"]  # the shell a frame's text is written for


@dataclass(frozen=True)
class Reach:
    """What the choice found for one pane: the kind and what the kind needs to know."""

    frame: str  # the kind's name
    kind: Kind | None  # the shell the text is for; None: unknown (the typed frame probes)
    local_view: bool  # the run's processes are on this machine: /proc shows them
    carrier: str = ""  # the carrier in the foreground (ssh, su...), if any


class PaneFacts:
    """What the choice knows of a pane when it asks each kind (frames/choose.py)."""

    def __init__(
        self, requested: str, program: str, shell: Kind | None, carrier: bool, pane_id: str,
        far_host: str | None, other_user: Callable[[], bool],
    ) -> None:
        self.requested = requested  # a kind's name, or "auto"
        self.program = program  # the foreground program's name (program_name)
        self.shell = shell  # the shell it is, if it is one
        self.carrier = carrier  # ssh, su, sudo, docker...: another shell behind it
        self.pane_id = pane_id
        self.far_host = far_host  # the served server's host when it is another (where.py)
        self._other_user = other_user
        self._seen: bool | None = None

    @property
    def other_user(self) -> bool:
        """The foreground process is another user's (read from /proc when first asked:
        never for a far host's pane, whose pids are not this machine's)."""
        if self._seen is None:
            self._seen = self.far_host is None and self._other_user()
        return self._seen


@dataclass(frozen=True)
class Order:
    """What a kind builds its strategy from: the run, the pane as the choice saw it and
    the server's state its runs share (the run table's)."""

    pane_id: str
    run_id: str
    command: str
    suppress_history: bool
    reach: Reach
    pane_pid: str
    shell: str  # the pane's foreground program (a shell, a carrier)
    pending: PendingInput
    far_looks: FarLooks


@dataclass(frozen=True)
class FrameKind:
    """One kind of frame, as the table holds it."""

    name: str
    # The reach this kind takes for the pane, None where it does not apply; when asked for
    # by name (``pane.requested``) it may raise ``Refused`` to say why it cannot.
    applies: Callable[[PaneFacts], Reach | None]
    build: Callable[[Order], Strategy]
    # Its typed line as another run's extract sees it (a regex alternative, searched) and
    # what a command printing over that line leaves at a row's end (frames/scrub.py).
    line: str = ""
    piece: str = ""
    facts: Callable[[], dict[str, Any]] = dict  # for tmux://capabilities, muxport doctor
    rank: int = 50  # "auto" asks the kinds in rank order; the first that applies wins


_TABLE: dict[str, FrameKind] = {}


def register(kind: FrameKind) -> None:
    """Add ``kind`` (a kind of the same name is replaced)."""
    _TABLE[kind.name] = kind
    _patterns.cache_clear()


def unregister(name: str) -> None:
    _TABLE.pop(name, None)
    _patterns.cache_clear()


def kinds() -> Iterator[FrameKind]:
    """Every kind, in the order "auto" asks them."""
    return iter(sorted(_TABLE.values(), key=lambda kind: (kind.rank, kind.name)))


def named(name: str) -> FrameKind | None:
    return _TABLE.get(name)


# Any run's marker row (frames/base.py, ``Markers``), a start or end marker or a probe's
# answer, whichever kind printed it.
_MARKER_ROW = r"[0-9a-f]{32}:(?:s|[ex]:[0-9]{1,3}|p:\S*)$"
_MARKER_END = r"[0-9a-f]{8,}(?::s|:[ex]:[0-9]{1,3})$"


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    lines = [_MARKER_ROW] + [kind.line for kind in kinds() if kind.line]
    pieces = [_MARKER_END] + [kind.piece for kind in kinds() if kind.piece]
    return re.compile("|".join(lines)), re.compile("|".join(pieces))


def other_frame() -> re.Pattern[str]:
    """Another run's frame row: a marker row, or any kind's typed line."""
    return _patterns()[0]


def piece() -> re.Pattern[str]:
    """What a command printing over a frame's row leaves of it at the row's end."""
    return _patterns()[1]

"""The strategy a frame is to the run's driver (run/driver.py; docs/run-outcomes.md,
"Frames"), what it tells the driver and what a run left.

A frame prepares (checks, private files, a probe), sends its one line, then follows
the run, turning what it sees into events (``started``, ``stopped``, ``resumed``,
``typed``, ``read``) and returns the run's ending. Only the driver turns those into a
run's transitions. Each kind of frame builds its strategy (frames/kinds.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from muxport import ToolContext

from muxport_execute.frames.sight import ProcessView

FrameName = str  # a kind's name in the table of frame kinds (frames/kinds.py)
Outcome = Literal["completed", "not_started", "lost", "pane_gone", "server_gone", "error"]
# typed, read: keys typed into the pane wait unread, or the run read them (run-outcomes.md)
Event = Literal["started", "stopped", "background", "resumed", "typed", "read"]
Emit = Callable[[Event], None]


@dataclass(frozen=True)
class Ending:
    """What a run left: its final answer."""

    outcome: Outcome
    exit_status: int | None = None
    output: list[str] = field(default_factory=list)
    framed: bool = False
    lines_missed: bool = True
    note: str | None = None
    reason: str | None = None  # why it did not start, or what failed (error_code)
    pane_lines: list[str] | None = None  # what the pane showed, when that explains it
    invalid_utf8: int | None = None  # bytes not UTF-8 in the raw output (None: not known)
    # the output outgrew the pane's history (its start marker is gone from a full history):
    # its first lines are lost, which the answer says as truncated (issue 30)
    outgrew: bool = False


class Strategy(Protocol):
    """One frame of one run, as the driver uses it: built once the reach is chosen."""

    @property
    def name(self) -> FrameName: ...

    async def prepare(self, ctx: ToolContext) -> Ending | None:
        """Everything before typing (checks, files, a probe); an ending where the run
        ends without its line typed; raises ``Refused`` where nothing was typed."""
        ...

    async def send(self, ctx: ToolContext) -> ProcessView | None:
        """Type the line; the frame's view of the run's processes (frames/sight.py), where
        it has one."""
        ...

    async def follow(self, emit: Emit) -> Ending:
        """Watch the dispatched run, emitting its events, until it ends."""
        ...

    def extract(self, capture: list[str]) -> Extracted:
        """The run's output in a joined capture of its pane."""
        ...

    def scrub(self, rows: list[str]) -> list[str]:
        """``rows`` without any text of this run's markers or typed line (frames/scrub.py)."""
        ...

    async def close(self) -> None:
        """Release what the frame holds (clients, pipes, private files); never raises."""
        ...



@dataclass(frozen=True)
class Extracted:
    """The command's lines found in a capture."""

    lines: list[str]
    started: bool  # the start marker is still in the pane
    ended: bool  # the end marker is in the pane, after the start marker if that is there
    status: int | None  # the status the end marker carries
    out_of_order: bool = False  # the end marker is above the start marker (cursor moved up)
    hidden: int = 0  # rows the pane showed while the run was stopped, left out

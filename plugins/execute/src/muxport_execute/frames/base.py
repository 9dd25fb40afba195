"""What every frame shares (docs/run-outcomes.md, "Frames"): the markers a run prints,
the lines found between them, a run's ending, and the strategy a frame is to the run's
driver (run/driver.py).

A frame prepares (checks, private files, a probe), sends its one line, then follows
the run, turning what it sees into events (``started``, ``stopped``, ``resumed``,
``typed``, ``read``) and
returns the run's ending. Only the driver turns those into a run's transitions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from muxport import ToolContext

from muxport_execute.frames.scrub import scrub
from muxport_execute.host.far_input import FarView
from muxport_execute.host.input_wait import View

FrameName = Literal["local", "typed"]
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

    async def send(self, ctx: ToolContext) -> View | FarView | None:
        """Type the line; the run's processes as ``/proc`` shows them (a far server's
        host's, through tmux: ``FarView``), if it can."""
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


def quote(value: str) -> str:
    """One POSIX single-quoted word."""
    return "'" + value.replace("'", "'\\''") + "'"


@dataclass(frozen=True)
class Markers:
    """The markers of one run's nonce, all that extract needs: the file frame and the typed
    frame (frames/typed_text.py) print the same ones."""

    nonce: str

    @property
    def start_marker(self) -> str:
        return f"{self.nonce}:s"

    @property
    def end_pattern(self) -> re.Pattern[str]:
        """The end marker, at the end of a line (after output that lacked a final newline)."""
        return re.compile(rf"^(.*){self.nonce}:e:([0-9]{{1,3}})$")

    def is_job(self, row: str) -> bool:
        """Whether ``row`` is a shell's job line about this run (C-z, fg), where known."""
        return False

    @property
    def frame_lines(self) -> tuple[str, ...]:
        """The frame's own lines the pane may show (a typed line), besides the markers."""
        return ()

    def scrub(self, rows: list[str]) -> list[str]:
        """``rows`` without any text of these markers or frame lines (frames/scrub.py)."""
        return scrub(rows, self.nonce, self.frame_lines)


# Another run's frame lines: a marker row, or the typed line that sourced a frame.
OTHER_FRAME = re.compile(
    r"[0-9a-f]{32}:(?:s|[ex]:[0-9]{1,3}|p:\S*)$|(?:\\\.|sh) '[^']*/mxr-[^/']+/run'"
    r"|eval \"\$\(printf '|sh -c \(printf '|printf '%s%s:p:%s"  # typed frames (typed_text.py)
)

# What a command printing over a frame's row leaves of it at the row's end (frames/scrub.py):
# the end of a marker (8 or more of its nonce's digits) or of a typed line (its directory's
# random part). Another run's: as OTHER_FRAME, nothing above it is this run's.
PIECE = re.compile(r"[0-9a-f]{8,}(?::s|:[ex]:[0-9]{1,3})$|-[a-z0-9_]{8}/run'$")


@dataclass(frozen=True)
class Extracted:
    """The command's lines found in a capture."""

    lines: list[str]
    started: bool  # the start marker is still in the pane
    ended: bool  # the end marker is in the pane, after the start marker if that is there
    status: int | None  # the status the end marker carries
    out_of_order: bool = False  # the end marker is above the start marker (cursor moved up)
    hidden: int = 0  # rows the pane showed while the run was stopped, left out


# A shell's job line that says a job stopped (C-z), anchored at the row's start: a job's
# text quotes its command, which may say "Stopped" itself. bash, dash, ksh, mksh, yash
# and busybox print ``[1]+  Stopped  <job>`` (also their ``jobs``), zsh ``zsh: suspended
# <job>`` and ``[1]  + suspended <job>``, fish ``fish: Job 1, '<job>…' has stopped`` (after
# ``^Z`` and a last unfinished line, on the same row) and, in ``jobs``, a table row.
STOPPED_JOB = re.compile(
    r"^(?:(?P<head>.*)\^Z)?(?:\[\d+\]\s*[+-]?\s*(?:Stopped|suspended)\b|zsh: suspended\b"
    r"|fish: Job \d+, .* has stopped$|\d+\s+\d+\s+\d+%\s+stopped\s)"
)


def _own(rows: list[str], frame: Markers) -> tuple[list[str], int]:
    """``rows`` without what the pane showed while the run was stopped (C-z): from the
    shell's job line that says it stopped (``STOPPED_JOB``) to the first job line about it
    that does not (what ``fg`` prints, zsh's ``continued``), each naming the run's job
    (``frame.is_job``); ``jobs`` listings in between say stopped. In between the run prints
    nothing; the pane shows what the person or other runs did there (their typed lines,
    markers and output) and the ``fg`` line."""
    out: list[str] = []
    stopped, hidden = False, 0
    for row in rows:
        job = frame.is_job(row)
        stop = STOPPED_JOB.match(row) if job else None
        if stopped:
            hidden += 1
            stopped = not job or stop is not None
        elif stop is not None:
            stopped, hidden = True, hidden + 1
            if stop["head"]:  # fish: the command's last unfinished line, then ^Z
                out.append(stop["head"])
            elif out and out[-1].endswith("^Z"):  # the terminal echoed C-z
                out[-1] = out[-1][:-2]
                if not out[-1]:
                    out.pop()
                    hidden += 1
        else:
            out.append(row)
    return out, hidden


def resumed_note(hidden: int) -> str:
    """What an answer says of a run stopped (C-z) and resumed whose output left out the
    ``hidden`` rows the pane showed meanwhile (``_own``)."""
    return (
        f"the run was stopped (C-z) and resumed: {hidden} rows the pane showed meanwhile "
        "(the job lines, the fg line, what was typed and run there) are left out of its "
        "output"
    )


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1]:
        lines.pop()
    return lines


def extract(frame: Markers, capture: list[str]) -> Extracted:
    """The lines strictly between the markers of ``frame`` in a joined (``-J``) capture.

    The start marker is the last line equal to it; the end marker the first later line
    ending with it (text before it is a last line printed without a newline). Without
    the start marker (the output outgrew the history, the pane was cleared, or the
    cursor moved up over it) the lines the pane still holds before the end marker are
    returned, but never another run's marker or typed line, nor anything above them.
    Without the end marker (still running) everything after the start is returned,
    trailing blank rows dropped.
    """
    rows = [row.rstrip() for row in capture]
    pattern = frame.end_pattern
    starts = [i for i, row in enumerate(rows) if row == frame.start_marker]
    ends = [(i, m) for i, row in enumerate(rows) if (m := pattern.match(row))]
    if starts:
        begin = starts[-1] + 1
        after = [(i, m) for i, m in ends if i >= begin]
        if after:
            index, match = after[0]
            tail = [match.group(1)] if match.group(1) else []
            lines, hidden = _own(rows[begin:index] + tail, frame)
            return Extracted(frame.scrub(lines), True, True, int(match.group(2)), hidden=hidden)
        status = int(ends[0][1].group(2)) if ends else None
        lines, hidden = _own(_trimmed(rows[begin:]), frame)
        return Extracted(frame.scrub(lines), True, False, status, bool(ends), hidden)
    stop, tail, status = len(rows), [], None
    if ends:
        stop, match = ends[0]
        tail, status = ([match.group(1)] if match.group(1) else []), int(match.group(2))
    region = rows[:stop]
    cut = max(
        (i for i, row in enumerate(region) if OTHER_FRAME.search(row) or PIECE.search(row)),
        default=-1,
    )
    # a piece of this run's own typed line or start marker is where its output begins, and
    # the text the command printed over it on that row is the command's (kept, scrubbed)
    own = cut >= 0 and not OTHER_FRAME.search(region[cut]) and (
        frame.scrub(region[cut : cut + 1]) != region[cut : cut + 1])
    lines = frame.scrub(region[cut if own else cut + 1 :] + tail)
    return Extracted(lines if ends else _trimmed(lines), False, bool(ends), status)



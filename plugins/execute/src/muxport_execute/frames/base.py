"""What every frame shares (docs/run-outcomes.md, "Frames"): the markers a run prints
and the lines found between them. The strategy a frame is to the run's driver, and a
run's ending, are frames/strategy.py's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from muxport_execute.frames.kinds import other_frame, piece
from muxport_execute.frames.scrub import scrub
from muxport_execute.frames.strategy import Extracted


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


# Another run's frame rows (a marker row, any kind's typed line) and what a command printing
# over a frame's row leaves of it at the row's end (frames/scrub.py) come from the table of
# frame kinds (frames/kinds.py: ``other_frame``, ``piece``): nothing above such a row is
# this run's.


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
    others, pieces = other_frame(), piece()
    cut = max(
        (i for i, row in enumerate(region) if others.search(row) or pieces.search(row)),
        default=-1,
    )
    # a piece of this run's own typed line or start marker is where its output begins, and
    # the text the command printed over it on that row is the command's (kept, scrubbed)
    own = cut >= 0 and not others.search(region[cut]) and (
        frame.scrub(region[cut : cut + 1]) != region[cut : cut + 1])
    lines = frame.scrub(region[cut if own else cut + 1 :] + tail)
    return Extracted(lines if ends else _trimmed(lines), False, bool(ends), status)



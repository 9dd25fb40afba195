"""The runs of one server: a run's record and the table that holds them
(docs/runs-and-waits.md).

    prepared --dispatch--> dispatched --start--> started <--stop/resume--> stopped
                                                    ^--background/resume--> background
        |                      |                    |                         |
        +------------------ end(outcome) from any of them ---------------------+

End states (``Outcome``): completed, not_started, lost, pane_gone, server_gone, error.
A run's state and fields change only in its driver (run/driver.py), the one caller of
the transitions; here a run is read. ``stopped`` is not an end: the run is still
watched (``fg`` resumes it), but it does not hold its pane; nor does ``background``
(``bg``: the job runs on while the pane's shell has the terminal again).

The table is bounded: at most ``CAPACITY`` runs; a finished run is kept
``KEEP_FINISHED`` seconds for ``wait_for_run``; the oldest finished run is evicted
first; a new run is refused only when every tracked run is still unfinished. A run
that was never dispatched (the server failed between reserving and typing) expires
after ``STALE_PREPARED`` seconds, so it can never hold a pane or a slot.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

import anyio
from muxport import NotFound, Refused, Tmux, Toolbox

from muxport_execute.frames.sight import ProcessView
from muxport_execute.frames.strategy import Ending, FrameName, Outcome, Strategy
from muxport_execute.host.far_input import FarLooks
from muxport_execute.pane.line_state import PendingInput
from muxport_execute.run import cleanup

CAPACITY = 64
KEEP_FINISHED = 3600.0
STALE_PREPARED = 60.0
STOP_GRACE = 0.6

State = Literal["prepared", "dispatched", "started", "stopped", "background"]
HOLDS_PANE: frozenset[str] = frozenset({"prepared", "dispatched", "started"})


def new_run_id() -> str:
    return "run-" + secrets.token_hex(8)


@dataclass
class Run:
    """One command sent to one pane; what its driver (run/driver.py) recorded."""

    run_id: str
    pane_id: str
    frame: Strategy | None = None  # set once, when the run is dispatched
    state: State | Outcome = "prepared"
    created: float = field(default_factory=time.monotonic)
    began: float | None = None  # when the line was typed
    finished: float | None = None
    ending: Ending | None = None
    output: list[str] = field(default_factory=list)  # the final output, newest kept
    stored_dropped: int = 0
    stored_truncated: bool = False  # the stored output was cut (a line clipped counts too)
    done: anyio.Event = field(default_factory=anyio.Event)
    changed: anyio.Event = field(default_factory=anyio.Event)  # set and renewed at each move
    frame_name: FrameName = "local"  # its kind's name (frames/kinds.py)
    view: ProcessView | None = None  # its frame's view of its processes (frames/sight.py)
    typed_in: bool = False  # keys typed into the pane waited unread at the last look (a note)

    @property
    def final(self) -> bool:
        return self.ending is not None

    @property
    def holds_pane(self) -> bool:
        return self.state in HOLDS_PANE

    async def settled(self, wait: float) -> None:
        """Return when the run has ended or is stopped, or after ``wait`` seconds.

        A stopped run answers once it stayed stopped ``STOP_GRACE`` seconds: long
        enough for the watcher to see a ``fg`` sent just before.
        """
        with anyio.move_on_after(wait):
            while not self.final:
                if self.state == "stopped":
                    with anyio.move_on_after(STOP_GRACE):
                        await self.changed.wait()
                        continue
                    return
                await self.changed.wait()

    def elapsed(self) -> float:
        begin = self.began if self.began is not None else self.created
        return (self.finished if self.finished is not None else time.monotonic()) - begin


class RunTable(Toolbox):
    """The execute toolset's lifespan object: its runs by id (oldest first, its only
    record of runs), the panes where its own input waits on the line and its runs' looks
    at a far host (one table per server: nothing is global)."""

    def __init__(self) -> None:
        self.runs: OrderedDict[str, Run] = OrderedDict()
        self.pending = PendingInput()
        self.far_looks = FarLooks()
        self.cleaned = cleanup.Cleaned()

    async def start(self, tmux: Tmux) -> None:
        """Before the first call: remove what dead muxports' runs left (run/cleanup.py)."""
        self.cleaned = await cleanup.after_crashes(tmux)

    async def aclose(self) -> None:
        """Release every run's frame (shutdown: their watchers are cancelled too)."""
        for run in list(self.runs.values()):
            if run.frame is not None:
                await run.frame.close()

    def busy(self, pane_id: str) -> Run | None:
        return next((r for r in self.runs.values() if r.pane_id == pane_id and r.holds_pane), None)

    def _expire(self) -> None:
        now = time.monotonic()
        for run_id, run in list(self.runs.items()):
            if run.finished is not None and now - run.finished > KEEP_FINISHED:
                del self.runs[run_id]
            elif run.state == "prepared" and now - run.created > STALE_PREPARED:
                del self.runs[run_id]

    def reserve(self, pane_id: str, busy_note: str = "") -> Run:
        """A new run for ``pane_id``, refused when the pane is busy or the table is full.

        Called with no ``await`` between the busy check and the insert, so two calls
        racing for one pane cannot both get it.
        """
        self._expire()
        current = self.busy(pane_id)
        if current is not None:
            raise Refused(
                f"pane {pane_id} is busy with run {current.run_id} from this server; call "
                f"wait_for_run with run_id {current.run_id} for its result{busy_note}, then "
                "run the next command",
                retryable=True,
                data={"reason": "busy", "run_id": current.run_id},
            )
        if len(self.runs) >= CAPACITY:
            finished = [r for r in self.runs.values() if r.final]
            if not finished:
                raise Refused(
                    f"{CAPACITY} runs of this server are still running; wait for one with "
                    "wait_for_run (list of ids in the earlier answers) before starting another",
                    retryable=True,
                    data={"reason": "capacity"},
                )
            oldest = min(finished, key=lambda r: r.finished or 0.0)
            del self.runs[oldest.run_id]
        run = Run(run_id=new_run_id(), pane_id=pane_id)
        self.runs[run.run_id] = run
        return run

    def release(self, run: Run) -> None:
        """Forget a run that was never dispatched (its driver released its frame)."""
        self.runs.pop(run.run_id, None)

    def get(self, run_id: str) -> Run:
        self._expire()
        run = self.runs.get(run_id)
        if run is None:
            raise NotFound(
                f"no run {run_id} on this server: it is unknown or was evicted (finished runs "
                f"are kept {int(KEEP_FINISHED // 60)} minutes, at most {CAPACITY} runs are "
                "tracked, and runs end with the server); capture_pane shows what the pane "
                "holds, run_shell_command starts a new run",
                data={"run_id": run_id},
            )
        return run

"""The run table: every run this server started, watched until it ends (DESIGN §9).

Bounded: at most ``CAPACITY`` runs are tracked; a finished run is kept ``KEEP_FINISHED``
seconds so that ``wait_for_run`` can still report it; when the table is full the oldest
finished run is evicted first, and a new run is refused only when every tracked run is
still running. One run at a time per pane: a pane with an unfinished run is busy.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

import anyio
from muxport.budgets import MAX_LINES, keep_newest
from muxport.errors import NotFound, Refused

from muxport_execute.frame import Frame
from muxport_execute.input_wait import View
from muxport_execute.typed_frame import TypedFrame

CAPACITY = 64
KEEP_FINISHED = 3600.0
STATE_KEY = "muxport_execute.runs"

Outcome = Literal["running", "completed", "not_started", "pane_gone", "server_gone"]
FrameName = Literal["local", "typed"]


def new_run_id() -> str:
    return "run-" + secrets.token_hex(8)


@dataclass
class Run:
    """One command sent to one pane, and, once it ended, what it left."""

    run_id: str
    pane_id: str
    started: float = field(default_factory=time.monotonic)
    frame: Frame | None = None
    typed: TypedFrame | None = None  # the typed frame (ssh, su...): no files, no channel
    view: View | None = None  # the run's processes are local: /proc shows input waits
    dispatched: bool = False
    done: anyio.Event = field(default_factory=anyio.Event)
    outcome: Outcome = "running"
    exit_status: int | None = None
    output: list[str] = field(default_factory=list)
    stored_dropped: int = 0  # lines dropped when the final output was stored (budget ceiling)
    framed: bool = False
    lines_missed: bool = False
    note: str | None = None
    finished: float | None = None

    def finish(
        self,
        outcome: Outcome,
        lines: list[str],
        framed: bool,
        missed: bool,
        exit_status: int | None,
        note: str | None = None,
    ) -> None:
        """Record the final answer once (the newest lines within the largest budget)."""
        if self.done.is_set():
            return
        kept = keep_newest(lines, MAX_LINES)
        self.outcome, self.exit_status, self.note = outcome, exit_status, note
        self.output, self.stored_dropped = kept.lines, kept.lines_dropped
        self.framed, self.lines_missed = framed, missed
        self.finished = time.monotonic()
        self.done.set()

    @property
    def frame_name(self) -> FrameName:
        return "typed" if self.typed is not None else "local"

    def elapsed(self) -> float:
        return (self.finished if self.finished is not None else time.monotonic()) - self.started


class RunTable:
    """Runs by id, oldest first."""

    def __init__(self) -> None:
        self.runs: OrderedDict[str, Run] = OrderedDict()

    def busy(self, pane_id: str) -> Run | None:
        return next(
            (r for r in self.runs.values() if r.pane_id == pane_id and not r.done.is_set()), None
        )

    def _expire(self) -> None:
        now = time.monotonic()
        for run_id, run in list(self.runs.items()):
            if run.finished is not None and now - run.finished > KEEP_FINISHED:
                del self.runs[run_id]

    def reserve(self, pane_id: str) -> Run:
        """A new run for ``pane_id``, refused when the pane is busy or the table is full.

        Called with no ``await`` between the busy check and the insert, so two calls
        racing for one pane cannot both get it.
        """
        current = self.busy(pane_id)
        if current is not None:
            raise Refused(
                f"pane {pane_id} is busy with run {current.run_id} from this server; call "
                f"wait_for_run with run_id {current.run_id} for its result (send_keys C-c "
                "stops it), then run the next command",
                retryable=True,
                data={"reason": "busy", "run_id": current.run_id},
            )
        self._expire()
        if len(self.runs) >= CAPACITY:
            finished = [r for r in self.runs.values() if r.done.is_set()]
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
        """Forget a run that was never dispatched."""
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

    def remove_files(self) -> None:
        """Remove every run's private directory (shutdown)."""
        for run in self.runs.values():
            if run.frame is not None:
                run.frame.remove()

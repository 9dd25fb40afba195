"""Faults injected into the soak (docs/reliability.md, "Soak"): the tmux server stopped for
a moment (SIGSTOP), then its socket moved away and back, while the four lanes go on.

A call that answers the fault's own error (``tmux_unresponsive``, ``socket_missing``)
during a fault, or within ``GRACE`` seconds after it, is counted, not an error; a run that
answered one names its ``run_id`` and is collected with ``wait_for_run``, and its answer is
checked like any run's. Any other error, and these errors outside the faults, still fail
the soak.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio

FAULT_CODES = frozenset({"tmux_unresponsive", "socket_missing"})
STOP_FOR = 1.5  # seconds the server stays stopped
MOVED_FOR = 1.0  # seconds its socket stays away
GRACE = 12.0  # a call answers within 10 s of a stall (docs/reliability.md), and slack


class Faults:
    """The fault windows of one soak, and whether an error belongs to one."""

    def __init__(self, tmux_pid: int, socket_path: str) -> None:
        self.tmux_pid = tmux_pid
        self.socket_path = socket_path
        self.windows: list[tuple[float, float]] = []
        self.injected: list[str] = []
        self.answered = 0  # calls that answered a fault's own error

    def expected(self, code: object) -> bool:
        now = time.monotonic()
        return code in FAULT_CODES and any(
            start <= now <= end + GRACE for start, end in self.windows
        )

    @contextmanager
    def window(self, what: str) -> Iterator[None]:
        start = time.monotonic()
        self.windows.append((start, float("inf")))
        try:
            yield
        finally:
            self.windows[-1] = (start, time.monotonic())
            self.injected.append(what)

    async def lane(self, seconds: float) -> None:
        """A stop at a third of the soak, a moved socket at two thirds."""
        await anyio.sleep(seconds / 3)
        try:
            os.kill(self.tmux_pid, signal.SIGSTOP)
        except ProcessLookupError:
            return  # tmux died under the load: the soak reports that (Soak.died)
        with self.window("stopped"):
            try:
                await anyio.sleep(STOP_FOR)
            finally:
                os.kill(self.tmux_pid, signal.SIGCONT)
        await anyio.sleep(seconds / 3)
        moved = self.socket_path + ".moved"
        with self.window("socket moved"):
            os.rename(self.socket_path, moved)
            try:
                await anyio.sleep(MOVED_FOR)
            finally:
                os.rename(moved, self.socket_path)

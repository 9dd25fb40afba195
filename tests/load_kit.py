"""Other work on the machine, for tests of what a loaded machine does to muxport."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def busy_cores(count: int = 2) -> Iterator[None]:
    """``count`` busy-loop processes for the duration (a machine whose cores are taken)."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for process in loops:
            process.kill()
            process.wait(timeout=10)

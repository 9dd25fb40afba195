"""``eventually``: the one bounded wait of the test kit, for what tmux announces no event for.

Tests wait on signals (``wait-for`` channels, ready markers, progress notifications)
wherever tmux gives one; a few outcomes have none (a client tmux dropped, a file a pane
wrote, a task that ended), and those are probed here, with a bound, never slept for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


async def eventually(
    probe: Callable[[], T],
    accept: Callable[[T], object] = bool,
    *,
    what: str = "the condition",
    within: float = 10.0,
    every: float = 0.02,
    last_on_timeout: bool = False,
) -> T:
    """Probe until ``accept(probe())`` holds and return that value. Once ``within`` seconds
    have passed: ``TimeoutError`` naming ``what`` and the last value seen, or with
    ``last_on_timeout`` that value (for a caller whose own assertion says what differs)."""
    deadline = anyio.current_time() + within
    while True:
        value = probe()
        if accept(value):
            return value
        if anyio.current_time() >= deadline:
            if last_on_timeout:
                return value
            raise TimeoutError(f"{what} did not happen within {within:g} s; last: {value!r}")
        await anyio.sleep(every)

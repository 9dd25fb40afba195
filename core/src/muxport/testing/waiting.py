"""``eventually``: the one bounded wait of the test kit, for what tmux announces no event for.

Tests wait on signals (``wait-for`` channels, ready markers, progress notifications)
wherever tmux gives one; a few outcomes have none (a client tmux dropped, a file a pane
wrote, a task that ended), and those are probed here, with a bound, never slept for.
``eventually_blocking`` is the same wait for synchronous code (a test that drives the
launcher as a subprocess, the kit's own blocking tmux helpers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


def _settled(
    value: T, accept: Callable[[T], object], deadline: float, what: str, within: float,
    last_on_timeout: bool,
) -> bool:
    """Whether the wait ends with ``value``; past the deadline it ends or raises."""
    if accept(value):
        return True
    if time.monotonic() < deadline:
        return False
    if last_on_timeout:
        return True
    raise TimeoutError(f"{what} did not happen within {within:g} s; last: {value!r}")


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
    deadline = time.monotonic() + within
    while True:
        value = probe()
        if _settled(value, accept, deadline, what, within, last_on_timeout):
            return value
        await anyio.sleep(every)


def eventually_blocking(
    probe: Callable[[], T],
    accept: Callable[[T], object] = bool,
    *,
    what: str = "the condition",
    within: float = 10.0,
    every: float = 0.02,
    last_on_timeout: bool = False,
) -> T:
    """``eventually`` for synchronous code: the same bound, blocking between probes."""
    deadline = time.monotonic() + within
    while True:
        value = probe()
        if _settled(value, accept, deadline, what, within, last_on_timeout):
            return value
        time.sleep(every)

"""Client regexes off the event loop (docs/reliability.md, "Client regexes").

RE2 compiles holding the GIL: compiles run in a worker thread one at a time, so between two
of them the event loop gets the GIL back (a compile within the limits of ``regex`` holds it
for a few milliseconds). Matching releases the GIL: it runs in a few worker threads of its
own, never in the default ones, which carry the server's stdio. A pass of matching charges
the thread's CPU time to the call's ``MatchBudget``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeAlias, TypeVar

import anyio
from anyio.lowlevel import RunVar

from muxport._internal.regex import (
    Compiled,
    MatchBudget,
    PatternTooCostly,
    compile_pattern,
    search,
)

T = TypeVar("T")

COMPILE_THREADS = 1
MATCH_THREADS = 4
SWITCH_INTERVAL = 0.0005  # seconds a computing thread may keep the GIL from the loop
_compiling: RunVar[anyio.CapacityLimiter] = RunVar("muxport_regex_compiling")
_matching: RunVar[anyio.CapacityLimiter] = RunVar("muxport_regex_matching")


def prefer_the_loop() -> None:
    """A worker thread computing in Python (reading a pattern, the glue around each match)
    keeps the GIL from the event loop for the interpreter's switch interval (5 ms) each time
    the loop wakes, and one call wakes the loop about ten times: 50 ms behind a pattern.
    The launcher shortens the interval to half a millisecond."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def _limiter(var: RunVar[anyio.CapacityLimiter], tokens: int) -> anyio.CapacityLimiter:
    """The limiter of this event loop (one per loop: a test may run several in turn)."""
    try:
        return var.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(tokens)
        var.set(limiter)
        return limiter


async def compile_user_regex(text: str) -> Compiled:
    """Compile a client's pattern off the event loop: ``ValueError`` says why RE2 refuses it,
    ``PatternTooCostly`` (a tool error) which limit it breaks."""
    return await anyio.to_thread.run_sync(
        compile_pattern, text, limiter=_limiter(_compiling, COMPILE_THREADS)
    )


async def match_off_loop(budget: MatchBudget, work: Callable[[], T]) -> T:
    """Run ``work`` (which calls ``search(compiled, line, budget)``) in a matching thread; a
    cancelled call does not wait for it (the budget ends it)."""

    def run() -> T:
        budget.begin()
        try:
            return work()
        finally:
            budget.end()

    return await anyio.to_thread.run_sync(
        run, limiter=_limiter(_matching, MATCH_THREADS), abandon_on_cancel=True
    )


class UserRegex:
    """A client's pattern compiled with RE2 within the cost limits: the public face of
    this module and ``regex`` (docs/plugin-contract.md, "muxport.policy")."""

    TooCostly: TypeAlias = PatternTooCostly  # a pattern or a search past a limit
    Budget: TypeAlias = MatchBudget  # the CPU time one call's matching may use

    def __init__(self, compiled: Compiled) -> None:
        self._compiled = compiled

    @property
    def pattern(self) -> str:
        return self._compiled.pattern

    @property
    def program_size(self) -> int:
        """RE2 instructions."""
        return self._compiled.program_size

    def __repr__(self) -> str:
        return f"UserRegex({self.pattern!r}, program_size={self.program_size})"

    @classmethod
    async def compile(cls, text: str) -> UserRegex:
        """``text`` compiled off the event loop: ``ValueError`` says why RE2 refuses it,
        ``TooCostly`` which limit it breaks."""
        return cls(await compile_user_regex(text))

    def search(self, line: str, budget: MatchBudget) -> int:
        """Where the pattern first matches ``line`` (-1: nowhere), within a bounded subject;
        only inside ``match_off_loop`` (raises ``TooCostly`` past the budget)."""
        return search(self._compiled, line, budget)

    @staticmethod
    async def match_off_loop(budget: MatchBudget, work: Callable[[], T]) -> T:
        """Run ``work`` (which calls ``search``) in a matching thread, off the event loop."""
        return await match_off_loop(budget, work)

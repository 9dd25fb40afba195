"""How serving ends (README, "When the client goes away"; docs/reliability.md, "Ending").

At EOF every request already read is answered: everything in flight has ``GRACE`` seconds
to finish; then the waits are cut short (``ctx.heartbeat`` ends its body, and the wait
answers with what it saw, as at its timeout); a call still running ``CUT`` seconds later is
cancelled and answered as cut short. Only then does the SDK see the end of its input.

SIGINT and SIGTERM end serving (or the startup) at once: nothing more is answered, the
toolboxes and tmux clients get ``SIGNAL_CLOSE`` seconds to close, and the launcher exits
130 or 143 within a second. Before its first tmux process the launcher exits at once
(``muxport_launch.signals``): there is nothing to undo yet.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import anyio
from anyio import TASK_STATUS_IGNORED
from anyio.abc import TaskStatus
from muxport_launch.signals import exit_at_once_on_signals

from muxport._internal.errors import ToolError

GRACE = 2.0  # seconds the calls in flight at EOF have to finish on their own
CUT = 0.25  # seconds a cut wait has to answer, and a cancelled call to be answered
EOF_CLOSE = 2.0  # seconds the toolboxes have to close after EOF
SIGNAL_CLOSE = 0.5  # ... after SIGINT or SIGTERM (the exit is due within 1 s)
CUT_NOTE = "cut short: the client closed muxport's input and muxport is exiting"


@dataclass
class Shutdown:
    """The server's ending, shared by every call: EOF seen, waits cut, calls in flight."""

    input_closed: bool = False
    cut: anyio.Event = field(default_factory=anyio.Event)
    calls: set[anyio.CancelScope] = field(default_factory=set)
    signal: int = 0  # the signal that ended serving (0: none)
    watched: bool = False  # the launcher receives the signals for its whole run (``watch``)
    watching: anyio.CancelScope | None = None  # ``watch``'s, ended by ``stop``

    async def watch(
        self, ending: anyio.CancelScope, *, task_status: TaskStatus[None] = TASK_STATUS_IGNORED
    ) -> None:
        """The launcher's, from just before its first tmux process until ``stop``: at SIGINT
        or SIGTERM note it and cancel ``ending`` (startup or serving alike; what was started
        is closed on the way out). Shielded, so the cancel it starts does not end it: a
        second signal while closing changes nothing (the close is bounded by
        ``SIGNAL_CLOSE`` already), where an ended receiver would have restored the default
        and a second SIGTERM killed the process with its tmux clients still running."""
        with anyio.CancelScope(shield=True) as self.watching:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
                self.watched = True
                task_status.started()
                async for signum in received:
                    if not self.signal:
                        self.signal = signum
                        ending.cancel()
        # ``stop`` came once everything was closed: from here a signal exits at once again.
        exit_at_once_on_signals()

    def stop(self) -> None:
        """End ``watch``: startup or serving has closed what it made."""
        if self.watching is not None:
            self.watching.cancel()

    async def on_signal(self, serving: anyio.CancelScope) -> None:
        """At SIGINT or SIGTERM: note it, and cancel ``serving`` (unless ``watch`` receives
        them: its cancelling covers serving)."""
        if self.watched:
            return
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
            async for signum in received:
                self.signal = signum
                serving.cancel()
                return

    @contextmanager
    def call(self) -> Iterator[anyio.CancelScope]:
        """The scope one tool call runs in: cancelled when the grace after EOF is over."""
        scope = anyio.CancelScope()
        self.calls.add(scope)
        try:
            with scope:
                yield scope
        finally:
            self.calls.discard(scope)

    async def drain(self, answered: Callable[[], Awaitable[None]]) -> None:
        """EOF: return once ``answered`` (every request read has its answer written), cutting
        the waits after ``GRACE`` and cancelling what is left ``CUT`` later."""
        self.input_closed = True
        with anyio.move_on_after(GRACE):
            return await answered()
        self.cut.set()
        with anyio.move_on_after(CUT):
            return await answered()
        for scope in list(self.calls):
            scope.cancel()
        with anyio.move_on_after(CUT):
            await answered()


def cut_short(tool: str) -> ToolError:
    """The answer of a call that was still running when the grace after EOF ended."""
    return ToolError(
        f"{tool} was {CUT_NOTE} ({GRACE:g} s after the end of its input); what it did so far "
        "stays done: a later muxport can look at the panes with the listing tools",
        code="cut_short", retryable=True, delivery="possibly_sent",
    )

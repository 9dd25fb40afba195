"""One session's feed: its control-mode client, whose lines ring the waiters of the
panes they name (what tmux sends a control client: docs/tmux-facts.md, "Control mode"),
and how that client is stopped. Which feeds run and who waits on them: ``watch.Feeds``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import anyio
from anyio.abc import Process

from muxport._internal.transport import Transport

READY_TIMEOUT = 2.0
STOP_GRACE = 1.0
# Notifications after which any waiter of the feed should look again.
STIR = (
    b"%window-close",
    b"%unlinked-window-close",
    b"%layout-change",
    b"%exit",
    b"%window-pane-changed",
    b"%sessions-changed",
)


class Doorbell(Protocol):
    """A waiter on a feed (``watch.Activity``): rung when its pane may have changed."""

    def ring(self) -> None: ...


@dataclass
class Feed:
    """One control client attached to one session, and the waiters it serves."""

    session_id: str
    process: Process | None = None
    watchers: dict[str, set[Doorbell]] = field(default_factory=dict)
    ready: anyio.Event = field(default_factory=anyio.Event)
    alive: bool = True
    polls: bool = False  # no feed could start for a far server: its waiters poll

    def ring_all(self) -> None:
        for group in self.watchers.values():
            for activity in group:
                activity.ring()

    def dispatch(self, line: bytes) -> None:
        """Act on one line of control-mode output."""
        if line.startswith(b"%output %"):
            pane = line[8:].split(b" ", 1)[0].decode("ascii", "replace")
            for activity in self.watchers.get(pane, ()):
                activity.ring()
        elif line.startswith(b"%session-changed "):
            changed_to = line.split(b" ")[1].decode("ascii", "replace")
            if not self.ready.is_set() and changed_to == self.session_id:
                self.ready.set()
            elif changed_to != self.session_id:
                # detach-on-destroy off moved us elsewhere: this feed no longer serves its session.
                self.alive = False
                self.ring_all()
        elif line.startswith(STIR):
            self.ring_all()

    async def read(self) -> None:
        """Read the client's output until it ends or the client exits (over the socket, tmux
        keeps the output open until the connection closes); then wake everyone."""
        assert self.process is not None
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._exited, self.process, group.cancel_scope)
                await self._lines(self.process)
                group.cancel_scope.cancel()
        finally:
            self.alive = False
            self.ready.set()
            self.ring_all()

    @staticmethod
    async def _exited(process: Process, scope: anyio.CancelScope) -> None:
        await process.wait()
        scope.cancel()

    async def _lines(self, process: Process) -> None:
        assert process.stdout is not None
        pending = b""
        try:
            while True:
                chunk = await process.stdout.receive()
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()
                for line in lines:
                    self.dispatch(line)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass


async def stop_feed(tmux: Transport, feed: Feed) -> None:
    """End a control client: closing its stdin makes tmux detach it before it exits, so
    ``list-clients`` no longer shows it once this returns."""
    process = feed.process
    feed.alive = False
    if process is None:
        return
    with anyio.CancelScope(shield=True):
        # Let it finish attaching (its %session-changed) first: a forked tmux -C leaving
        # half attached is what crashed tmux before 3.7 (docs/tmux-facts.md).
        with anyio.move_on_after(READY_TIMEOUT):
            await feed.ready.wait()
        if process.stdin is not None:
            try:
                await process.stdin.aclose()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                pass
        # A stalled server detaches nobody: waiting for that would only delay the answer.
        with anyio.move_on_after(0 if tmux.liveness.stalled else STOP_GRACE):
            await process.wait()
        await tmux.stop_client(process)

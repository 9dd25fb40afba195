"""One tmux ``wait-for`` client for one channel, and its clean release.

The client runs, in ONE tmux invocation (so the server processes it in one pass)::

    display -p armed ; set -g @mark 1 ; run-shell -b -d 0 -C 'set -gu @mark' ;
    wait-for CH ; display -p 'woke#{@mark}'

``armed`` arrives once the waiter is registered (or has already returned). The
``run-shell -d 0`` timer fires only after that pass, so ``woke1`` means ``wait-for``
returned within the pass (tmux had kept a signal sent before the call) and ``woke``
means a signal arrived later. The timer removes the marker option in both cases.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Literal

import anyio
from anyio.abc import ByteReceiveStream, Process
from muxport import ToolContext

Ending = Literal["pending", "signalled", "timed_out", "gone", "failed", "lost"]
GRACE = 5.0  # seconds granted to start the client and register, even with timeout 0
RELEASE = 2.0  # seconds granted to wake and reap our own waiter


class Lines:
    """Lines from a byte stream; ``None`` at end of stream."""

    def __init__(self, stream: ByteReceiveStream | None) -> None:
        self.stream = stream
        self.buffer = b""

    async def readline(self) -> str | None:
        while b"\n" not in self.buffer:
            if self.stream is None:
                return None
            try:
                self.buffer += await self.stream.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                return None
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace")


class Waiter:
    """Waits once on ``channel``; ``others()`` says whether other muxport waits share it."""

    def __init__(
        self, ctx: ToolContext, channel: str, others: Callable[[], bool], start: float
    ) -> None:
        self.ctx = ctx
        self.channel = channel
        self.others = others
        self.start = start
        self.registered = False  # our wait-for is (possibly) on the server's waiter list
        self.seen_armed = False
        self.lines = Lines(None)

    async def run(self, deadline: float) -> Ending:
        mark = f"@muxport-wait-{secrets.token_hex(8)}"
        process = await self.ctx.tmux.start_waiter(
            self.channel,
            ("display-message", "-p", "armed"),
            ("set-option", "-g", mark, "1"),
            ("run-shell", "-b", "-d", "0", "-C", f"set-option -gu {mark}"),
            after=[("display-message", "-p", f"woke#{{{mark}}}")],
        )
        self.lines = lines = Lines(process.stdout)
        try:
            first: str | None = "(nothing yet)"
            with anyio.move_on_after(max(deadline, time.monotonic() + GRACE) - time.monotonic()):
                first = await lines.readline()
            self.registered = self.seen_armed = first == "armed"
            if not self.registered:
                if await self.server_gone():
                    return "gone"
                # ended without arming while the server answers: it could not reach the
                # server for a moment (a socket moved and back); the caller starts another
                return "timed_out" if first == "(nothing yet)" else "failed"
            await self.ctx.wait_progress(
                f"channel {self.channel}", deadline - self.start, time.monotonic() - self.start,
                "registered",
            )
            woke: str | None = ""
            with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                woke = await lines.readline()
                self.registered = False
            if self.registered:
                return "timed_out"
            if woke == "woke1":
                return "pending"
            # tmux also wakes every waiter when the server exits: check it is still there.
            # An end without a line while it is there is a lost connection (a far server's
            # ssh master died: docs/ssh.md), not a signal; tmux still counts the lost
            # waiter, so a signal sent meanwhile woke it and is gone: say so
            if woke is None:
                return "gone" if await self.server_gone() else "lost"
            return "gone" if await self.server_gone() else "signalled"
        finally:
            await self.release(process)

    async def server_gone(self) -> bool:
        probe = await self.ctx.tmux.read(("display-message", "-p", "#{pid}"), check=False)
        return probe.returncode != 0

    async def release(self, process: Process) -> None:
        """Leave no client process and no registered waiter behind (shielded)."""
        with anyio.CancelScope(shield=True):
            if process.returncode is None and not self.seen_armed:
                # Cancelled before tmux answered: let it answer, so that we know
                # whether a waiter got registered.
                with anyio.move_on_after(RELEASE):
                    self.registered = self.seen_armed = await self.lines.readline() == "armed"
            if process.returncode is None and self.registered and not self.others():
                # Wake our own waiter rather than kill it (see Tmux.wake_waiter).
                await self.ctx.tmux.wake_waiter(self.channel, process, RELEASE)
            # With other muxport waits on the channel a killed waiter is harmless: the
            # next signal wakes them and it together, and the last one out wakes it.
            await self.ctx.tmux.stop_client(process)

"""The stdio transport, owned so that memory stays bounded (docs/reliability.md, "Bounded
memory": the SDK's own transport holds every request and answer, so a client that stops
reading would grow the server without bound). Frames are judged in ``frames.py``.

The SDK is fed through plain anyio memory streams, which its server takes as they are
(``mcp.shared._stream_protocols``). Its own transports wrap them to carry each sender's
``contextvars`` to the handler; here the one sender is ``_read``, whose context holds
nothing a handler reads, so the wrapper (a private SDK module) would add nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from muxport_launch.early import DISCOVER, EarlyInitialize, write_all

from muxport._internal.frames import Frames, Verdict
from muxport._internal.settings import Limits

log = logging.getLogger(__name__)

CHUNK = 1 << 16
LAST_WRITE = 0.5  # seconds the last answers have to be written once serving ended
Serve = Callable[[Any, Any], Coroutine[Any, Any, None]]
Send = Callable[[SessionMessage], Awaitable[None]]
Drain = Callable[[Callable[[], Awaitable[None]]], Awaitable[None]]


@dataclass
class Pressure:
    """What is in flight: request ids read but not yet answered, and unwritten bytes."""

    limits: Limits
    calls: dict[object, bool] = field(default_factory=dict)  # id -> is a quick call
    pending_bytes: int = 0
    changed: anyio.Event = field(default_factory=anyio.Event)

    def full(self) -> bool:
        return (
            len(self.calls) >= self.limits.max_calls
            or sum(self.calls.values()) >= self.limits.max_quick_calls  # calls: id -> quick
            or self.pending_bytes >= self.limits.max_pending_bytes
        )

    def notify(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    async def room(self) -> None:
        """Wait until another request may be read."""
        while self.full():
            await self.changed.wait()

    def done(self, ident: object) -> None:
        if self.calls.pop(ident, None) is not None:
            self.notify()


@contextlib.contextmanager
def claimed_stdio() -> Iterator[tuple[int, int]]:
    """Private copies of fds 0 and 1; the standard fds then point at /dev/null and stderr,
    so that nothing a child or a library prints can corrupt the wire."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield wire_in, wire_out
    finally:
        os.close(null)
        with contextlib.suppress(OSError):
            os.dup2(wire_in, 0)
            os.dup2(wire_out, 1)


def log_message(level: str, text: str) -> bytes:
    """A ``notifications/message`` line from the logger ``muxport``."""
    params = {"level": level, "logger": "muxport", "data": text}
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params},
                      ensure_ascii=False).encode() + b"\n"


class StdioLoop:
    """Reads framed requests from ``wire_in`` into the SDK and its answers to ``wire_out``."""

    def __init__(
        self, limits: Limits, is_quick: Callable[[str], bool], drain: Drain | None = None
    ) -> None:
        self.drain = drain  # at EOF: returns once every request read is answered (or cut)
        self.greeting: str | None = None  # a log message sent after the initialize answer
        self.pressure = Pressure(limits)
        self.frames = Frames(limits.max_request_bytes, is_quick, self.pressure.calls)
        self.outbox: list[bytes] = []
        self.answered: list[object] = []  # ids whose answers are in the outbox
        self.queued = anyio.Event()
        self.early: EarlyInitialize | None = None  # the launcher's hold on the wire
        self.early_key: object = None  # the initialize the launcher answered

    async def serve(self, serve: Serve) -> None:
        to_server, server_in = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        server_out, from_server = anyio.create_memory_object_stream[SessionMessage](0)
        with self._wire() as (wire_in, wire_out):
            async with anyio.create_task_group() as group:
                group.start_soon(self._intake, from_server)
                group.start_soon(self._flush, wire_out)
                group.start_soon(self._read, wire_in, to_server)
                # Returns at EOF, once every request read is answered (``drain``); the SDK
                # cancels what is left once its input is closed.
                await serve(server_in, server_out)
                with anyio.move_on_after(LAST_WRITE):  # what is queued still goes out
                    while self.pressure.pending_bytes:
                        await self.pressure.changed.wait()
                group.cancel_scope.cancel()

    @contextlib.contextmanager
    def _wire(self) -> Iterator[tuple[int, int]]:
        if self.early is None:
            with claimed_stdio() as fds:
                yield fds
        else:
            yield self.early.wire_in, self.early.wire_out

    async def _first_bytes(self) -> bytes | None:
        """What the launcher read before this loop ran (None: read on as usual, b"": EOF)."""
        early = self.early
        if early is None:
            return None
        await anyio.to_thread.run_sync(early.done.wait, abandon_on_cancel=True)
        if early.answered_method == DISCOVER:  # never reaches the SDK (frames.py)
            self.frames.answered_early = Frames.key(early.answered)
        elif early.answered is not None:
            self.early_key = Frames.key(early.answered)
        return bytes(early.read) if early.read or early.eof else None

    async def _answered(self) -> None:
        """Return once every request read has its answer written."""
        while self.pressure.calls:
            await self.pressure.changed.wait()

    def _queue(self, data: bytes) -> None:
        self.outbox.append(data)
        self.pressure.pending_bytes += len(data)
        self.queued.set()

    async def _read(
        self, wire_in: int, to_server: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        async with to_server:  # closed at EOF: the SDK then ends
            first = await self._first_bytes()
            while True:
                await self.pressure.room()
                if first is not None:
                    chunk, first = first, (b"" if self.early and self.early.eof else None)
                else:
                    chunk = await anyio.to_thread.run_sync(
                        os.read, wire_in, CHUNK, abandon_on_cancel=True
                    )
                if not chunk:
                    if self.drain is not None:
                        await self.drain(self._answered)
                    return
                # One chunk holds hundreds of small requests: room is checked before each
                # one is taken from it (the rest of the chunk waits, at most CHUNK bytes).
                verdicts = self.frames.feed(chunk)
                while (verdict := next(verdicts, None)) is not None:
                    await self._act(verdict, to_server.send)
                    await self.pressure.room()

    async def _act(self, verdict: Verdict, send: Send) -> None:
        if verdict.reply is not None:
            self._queue(verdict.reply)
        if verdict.release is not None:
            self.pressure.done(verdict.release)
        if verdict.message is not None:
            await send(SessionMessage(verdict.message))

    async def _intake(self, from_server: MemoryObjectReceiveStream[SessionMessage]) -> None:
        """Serialize the SDK's messages at once (the objects behind them are freed). Closed
        when this task ends (a signal): the SDK's last writes then fail at once instead of
        blocking its teardown for a second each."""
        async with from_server:
            async for item in from_server:
                message = item.message
                data = message.model_dump_json(by_alias=True, exclude_unset=True).encode()
                key = None
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    key = Frames.key(message.id)
                    self.answered.append(key)
                if key is not None and self._answered_early(key, message):
                    self._queue(b"")  # already written by the launcher: the id is released
                else:
                    self._queue(data + b"\n")
                answer = isinstance(message, types.JSONRPCResponse)  # not a refusal
                if self.greeting and answer and key == self.frames.initialize_key:
                    self._queue(log_message("info", self.greeting))
                    self.greeting = None

    def _answered_early(self, key: object, message: types.JSONRPCMessage) -> bool:
        """Whether this is the SDK's answer to the initialize the launcher answered."""
        if self.early_key is None or key != self.early_key:
            return False
        self.early_key = None  # once: a later request may reuse the id
        if isinstance(message, types.JSONRPCError):
            log.warning("the SDK refused the initialize answered early: %s", message.error)
        return True

    async def _flush(self, wire_out: int) -> None:
        while True:
            if not self.outbox:
                await self.queued.wait()
                self.queued = anyio.Event()
                continue
            batch, self.outbox = self.outbox, []
            done, self.answered = self.answered, []
            data = b"".join(batch)
            batch.clear()
            await anyio.to_thread.run_sync(write_all, wire_out, data, abandon_on_cancel=True)
            self.pressure.pending_bytes -= len(data)
            del data
            for key in done:
                self.pressure.calls.pop(key, None)
            self.pressure.notify()

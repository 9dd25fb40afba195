"""One tmux command over the server's socket, without a process (docs/transport.md).

``WireClient`` is what a forked ``tmux`` command client would be, as an object that looks
like an ``anyio`` process, so that long-lived clients (``wait-for``) are used the same way.
Nothing here blocks the event loop; reading is pulled by whoever awaits.
"""

from __future__ import annotations

import asyncio
import os
import socket
from signal import Signals
from typing import Self

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

from muxport._internal import wire

LOST = b"server exited unexpectedly\n"  # what the tmux binary prints when the server goes


class Unreachable(Exception):
    """No connection (no server, no socket, a path too long): the forked client decides."""


class _Output(ByteReceiveStream):
    """The client's stdout as a stream, filled by the connection's pump."""

    def __init__(self, client: WireClient) -> None:
        self.client = client

    async def receive(self, max_bytes: int = 65536) -> bytes:
        client = self.client
        while len(client.out) == client.handed and not client.ended:
            await client.pump()
        if len(client.out) == client.handed:
            raise anyio.EndOfStream
        data = bytes(client.out[client.handed : client.handed + max_bytes])
        client.handed += len(data)
        return data

    async def aclose(self) -> None:
        pass


class WireClient(Process):
    """A tmux command client spoken over the socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.loop = asyncio.get_running_loop()
        self.frames = wire.Frames()
        self.lock = anyio.Lock()
        self.streams: dict[int, bytearray | None] = {}  # stream number -> buffer (None: refused)
        self.out = bytearray()  # everything stream 1 got (for a one-shot command)
        self.handed = 0  # bytes of ``out`` already handed to a stdout reader
        self.err = bytearray()
        self.status: int | None = None
        self.ended = False
        self.mismatch = False  # the server speaks another protocol version
        self.heard = False  # the server sent anything at all
        # what the client says of itself: this process's environment and directory, or,
        # for a server on another host, the far host's (``WireTransport.identity``)
        self.identity: tuple[dict[str, str], str] | None = None
        self._stdout = _Output(self)

    @classmethod
    async def connect(cls, path: str) -> Self:
        """Connect; ``Unreachable`` when there is nothing to talk to."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        client = cls(sock)
        try:
            await client.loop.sock_connect(sock, path)
        except OSError as exc:
            sock.close()
            raise Unreachable(str(exc)) from exc
        except BaseException:
            sock.close()
            raise
        return client

    async def identify(self, flags: int, last: bytes, fd: int = -1,
                       fd_header: wire.FdHeader | None = None) -> None:
        """Identify with ``flags``, then send ``last`` (the command) in the same write as
        the flags and ``IDENTIFY_DONE``; ``fd`` goes as stdin and stdout first (control
        mode), one message per sendmsg since tmux takes one descriptor per read."""
        environ, cwd = self.identity or (dict(os.environ), os.getcwd())
        about = wire.identify_about(environ, cwd)
        done = wire.identify_done(flags) + last
        if fd < 0:
            await self.send(about + done)
            return
        await self.send(about)
        await self.send(wire.frame(wire.IDENTIFY_STDIN, fd=fd_header), fd)
        await self.send(wire.frame(wire.IDENTIFY_STDOUT, fd=fd_header), fd)
        await self.send(done)

    async def send(self, data: bytes, fd: int | None = None) -> None:
        """Send ``data`` (with ``fd`` passed along its first byte), waiting while the
        socket buffer is full rather than blocking."""
        while data:
            try:
                if fd is not None:
                    sent = socket.send_fds(self.sock, [data], [fd])
                    fd = None
                else:
                    sent = self.sock.send(data)
                data = data[sent:]
            except BlockingIOError:
                writable = self.loop.create_future()
                self.loop.add_writer(self.sock, writable.set_result, None)
                try:
                    await writable
                finally:
                    self.loop.remove_writer(self.sock)

    def lost(self) -> None:
        if self.status is None:
            self.status = 1
            self.err += LOST
        self.ended = True

    async def pump(self) -> None:
        """Read and act on what the server sent next (one reader at a time)."""
        async with self.lock:
            if self.ended:
                return
            try:
                chunk = await self.loop.sock_recv(self.sock, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                self.lost()
                return
            self.heard = True
            try:
                reply = b"".join(self._dispatch(*message) for message in self.frames.feed(chunk))
            except wire.VersionMismatch:
                # The server ran nothing (proc.c drops the peer first): the caller may fork.
                self.mismatch = True
                self.err += b"protocol version mismatch\n"
                self.lost()
                return
            if reply and not self.ended:
                try:
                    await self.send(reply)
                except OSError:
                    self.lost()

    def _dispatch(self, kind: int, data: bytes) -> bytes:
        """Act on one message; return the answer to send, if any (client.c, file.c)."""
        if kind == wire.MSG_WRITE_OPEN and len(data) >= wire.WRITE_OPEN.size:
            stream, fd, _flags = wire.WRITE_OPEN.unpack_from(data)
            target = {1: self.out, 2: self.err}.get(fd)  # a named file is refused
            self.streams[stream] = target
            error = 0 if target is not None else wire.EBADF
            return wire.frame(wire.MSG_WRITE_READY, wire.PAIR.pack(stream, error))
        if kind == wire.MSG_WRITE and len(data) >= wire.INT.size:
            (stream,) = wire.INT.unpack_from(data)
            target = self.streams.get(stream)
            if target is not None:
                target += data[wire.INT.size :]
        elif kind == wire.MSG_READ_OPEN and len(data) >= wire.PAIR.size:
            stream, fd = wire.PAIR.unpack_from(data)
            # stdin is /dev/null: end of file at once; a named file is refused
            error = 0 if fd == 0 else wire.EBADF
            return wire.frame(wire.MSG_READ_DONE, wire.PAIR.pack(stream, error))
        elif kind in (wire.MSG_EXIT, wire.MSG_SHUTDOWN):
            self.status = wire.INT.unpack_from(data)[0] if len(data) >= wire.INT.size else 0
            message = data[wire.INT.size :].split(b"\0", 1)[0]
            if message:
                self.err += message + b"\n"
            self.ended = True
        elif kind in (wire.MSG_DETACH, wire.MSG_DETACHKILL):
            return wire.frame(wire.MSG_EXITING)
        elif kind == wire.MSG_EXITED:
            self.status = self.status or 0
            self.ended = True
        return b""

    # The anyio Process interface, for long-lived clients.

    async def wait(self) -> int:
        while not self.ended:
            await self.pump()
        assert self.status is not None
        return self.status

    def kill(self) -> None:
        """Drop the connection now: tmux forgets this client, as when its process dies."""
        if self.status is None:
            self.status = -9
        self.ended = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def terminate(self) -> None:
        self.kill()

    def send_signal(self, signal: Signals) -> None:
        self.kill()

    async def aclose(self) -> None:
        """Close the socket, once a pump still reading it has seen the end (shielded)."""
        self.kill()
        with anyio.CancelScope(shield=True), anyio.move_on_after(1):
            async with self.lock:
                pass
        self.sock.close()

    @property
    def pid(self) -> int:
        return -1  # no process: the client is this connection

    @property
    def returncode(self) -> int | None:
        return self.status if self.ended else None

    @property
    def stdin(self) -> ByteSendStream | None:
        return None

    @property
    def stdout(self) -> ByteReceiveStream:
        return self._stdout

    @property
    def stderr(self) -> ByteReceiveStream | None:
        return None

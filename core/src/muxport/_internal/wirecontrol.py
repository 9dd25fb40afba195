"""A control-mode client spoken over the server's socket (docs/transport.md, "Control mode
over the socket"): no process, and its flags arrive in one read with ``IDENTIFY_DONE``,
so tmux before 3.7 never holds it as a control client without control state (the crash
in docs/tmux-facts.md, "Control mode").

tmux reads a control client's commands from its stdin descriptor and writes its output to
its stdout descriptor itself; here both are one end of a socket pair, whose other end is
``stdin`` and ``stdout`` of this object.
"""

from __future__ import annotations

import os
import socket

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

from muxport._internal import wire
from muxport._internal.wireclient import WireClient


class _PairOutput(ByteReceiveStream):
    """What tmux writes to the control client."""

    def __init__(self, client: ControlClient) -> None:
        self.client = client

    async def receive(self, max_bytes: int = 65536) -> bytes:
        try:
            data = await self.client.loop.sock_recv(self.client.pair, max_bytes)
        except OSError:
            data = b""
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        pass


class _PairInput(ByteSendStream):
    """What the control client says to tmux; closing it makes tmux detach the client."""

    def __init__(self, client: ControlClient) -> None:
        self.client = client

    async def send(self, item: bytes) -> None:
        try:
            await self.client.loop.sock_sendall(self.client.pair, item)
        except OSError as exc:
            raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        try:
            self.client.pair.shutdown(socket.SHUT_WR)
        except OSError:
            pass


class ControlClient(WireClient):
    """``tmux -C COMMAND`` as a connection: ``stdout`` the control output, ``stdin`` closed
    to detach, ``wait()`` the exit."""

    pair: socket.socket
    _input: _PairInput
    _output: _PairOutput

    @classmethod
    async def start(
        cls, path: str, args: list[str], fd_header: wire.FdHeader
    ) -> ControlClient:
        """Connect, identify as a control client and send ``args``; ``Unreachable`` when
        there is nothing to talk to, ``TooLong`` for a command over one message."""
        last = wire.command(args)
        client = await cls.connect(path)
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        client.pair = ours
        client._input, client._output = _PairInput(client), _PairOutput(client)
        try:
            flags = wire.CLIENT_CONTROL | wire.client_flags(os.environ)
            await client.identify(flags, last, theirs.fileno(), fd_header)
        except BaseException:
            await client.aclose()
            raise
        finally:
            theirs.close()  # tmux holds its own copies; ours would keep its end from closing
        return client

    def kill(self) -> None:
        super().kill()
        try:
            self.pair.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    async def aclose(self) -> None:
        await super().aclose()
        self.pair.close()

    @property
    def stdin(self) -> ByteSendStream:
        return self._input

    @property
    def stdout(self) -> ByteReceiveStream:
        return self._output

"""A long-lived tmux client forked on a far host (``--ssh``) whose output starts where the
command's own does: past what the far login's rc files printed and the marker line that
ends it (``SshHost.command``; docs/ssh.md, "What a far login prints")."""

from __future__ import annotations

from signal import Signals

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, Process

MARKER_BOUND = 15.0  # seconds the far login may take to reach the command (ssh's connect)


class _Rest(ByteReceiveStream):
    """What came after the marker, then the process's output as it comes."""

    def __init__(self, first: bytes, stream: ByteReceiveStream) -> None:
        self.first = first
        self.stream = stream

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if self.first:
            chunk, self.first = self.first[:max_bytes], self.first[max_bytes:]
            return chunk
        return await self.stream.receive(max_bytes)

    async def aclose(self) -> None:
        await self.stream.aclose()


class FarClient(Process):
    """``process`` with its output read past ``marker`` (everything, if it never came)."""

    def __init__(self, process: Process, first: bytes, stream: ByteReceiveStream) -> None:
        self.process = process
        self._stdout = _Rest(first, stream)

    @classmethod
    async def past(cls, process: Process, marker: str) -> FarClient:
        assert process.stdout is not None
        seen, end = b"", b"\n" + marker.encode() + b"\n"
        with anyio.move_on_after(MARKER_BOUND):
            while end not in seen:
                try:
                    seen += await process.stdout.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError,
                        anyio.BrokenResourceError):
                    break
        _, found, rest = seen.partition(end)
        return cls(process, rest if found else seen, process.stdout)

    async def aclose(self) -> None:
        await self.process.aclose()

    async def wait(self) -> int:
        return await self.process.wait()

    def terminate(self) -> None:
        self.process.terminate()

    def kill(self) -> None:
        self.process.kill()

    def send_signal(self, signal: Signals) -> None:
        self.process.send_signal(signal)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    @property
    def stdin(self) -> ByteSendStream | None:
        return self.process.stdin

    @property
    def stdout(self) -> ByteReceiveStream:
        return self._stdout

    @property
    def stderr(self) -> ByteReceiveStream | None:
        return self.process.stderr

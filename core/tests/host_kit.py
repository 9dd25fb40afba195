"""A third kind of host, written as a test fixture only: the proof that a host kind plugs
into the transport without editing it (docs/transport.md, "Hosts").

``WrappedHost`` stands for a container reached by ``docker exec -i NAME``: no socket
of the server is reachable from here, so every command is a forked client run through a
wrapper command (here ``env``, which any machine has), and the server's processes are
not this machine's to look at. It records every argv it wrapped and every client it
adopted, so that a test can prove the transport went through it.
"""

from __future__ import annotations

from collections.abc import Sequence

from anyio.abc import Process
from muxport._internal.host import Host

WRAPPER = ("env", "MUXPORT_WRAPPED_HOST=1")  # ``docker exec -i NAME`` in a real one


class WrappedHost(Host):
    kind = "wrapped"
    local = False

    def __init__(self, label: str = "box-1") -> None:
        self.label = label
        self.wrapped: list[list[str]] = []
        self.adopted: list[Process] = []
        self.closed = False

    @property
    def name(self) -> str:
        return self.label

    def wire_socket(self, socket_path: str) -> str | None:
        return None  # the container's socket is not this machine's: forked clients only

    def command(self, argv: Sequence[str]) -> list[str]:
        wrapped = [*WRAPPER, *argv]
        self.wrapped.append(wrapped)
        return wrapped

    async def adopt(self, process: Process) -> Process:
        self.adopted.append(process)
        return process

    def report(self) -> dict[str, str]:
        return {"host": self.label, "host_transport": "wrapped: every client forked via env"}

    def attach(self, command: str) -> str:
        return f"{' '.join(WRAPPER)} {command}"

    async def close(self) -> None:
        self.closed = True

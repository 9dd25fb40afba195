"""The launcher spoken to in raw JSON-RPC lines (``Wire``), so that sizes are the bytes on
the wire, not a client's re-encoding; ``initialized`` is one with all four toolsets."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from typing import Any

from muxport.testing import JsonLines
from muxport.testing.clients import launcher

from tests.conftest import FIRST_PARTY, clean_env

TIMEOUT = 30.0  # seconds for one answer line (a loaded machine)


class Wire:
    """The launcher as a subprocess spoken to in raw JSON-RPC lines, so that sizes are
    the bytes on the wire, not a client's re-encoding."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [launcher()], env=clean_env(env), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0
        assert self.process.stdout is not None
        self.lines = JsonLines(self.process.stdout)
        self.raw = self.lines.raw  # every line received, for the leak check

    def request(self, method: str, params: dict[str, Any] | None = None) -> tuple[int, Any]:
        """Send one request; return (bytes of its answer line, the decoded message)."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        answer = self.lines.answer(self.next_id, TIMEOUT)
        return len(self.raw[-1]), answer

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=20)


@contextlib.contextmanager
def initialized(tmux_server: Any) -> Iterator[Wire]:
    """A ``Wire`` to a launcher with the four first-party toolsets, after the handshake."""
    session = Wire({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                    "LIBTMUX_TOOLSETS": ",".join(FIRST_PARTY)})
    try:
        session.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "client-fit-test", "version": "0"},
        })
        session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield session
    finally:
        session.close()

"""EOF on stdin ends the launcher cleanly (docs/architecture.md): every request read is
answered, then exit 0 (within 1 s when nothing is in flight), tmux clients it started
reaped, private files removed, the served server left running; SIGINT and SIGTERM end it
within 1 s with stdin open, and a run in flight goes on in its pane. Spoken to as raw JSON
lines, the way any MCP client writes them."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from muxport._internal.shutdown import GRACE
from muxport.testing import eventually_blocking
from muxport.testing.clients import launcher

from tests.conftest import time_exit

HOLD_PLUGIN = '''
import os
import tempfile

import anyio
from pydantic import Field

from muxport import Args, Capability, Result, ToolContext, Toolbox, hookimpl, tool


class HoldArgs(Args):
    ready: str = Field(max_length=100)
    pid_file: str = Field(max_length=500)


class Held(Result):
    pass


class Hold(Toolbox):
    """Private files that live until the server shuts down."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def aclose(self) -> None:
        for path in self.paths:
            os.unlink(path)

    @tool(Capability.READ.replace(may_expose_secrets=False, may_return_untrusted_content=False),
          title="Hold")
    async def hold_client(self, ctx: ToolContext, args: HoldArgs) -> Held:
        """Hold a tmux wait-for client and a private file until the server shuts down."""
        fd, path = tempfile.mkstemp(prefix="hold-")
        os.close(fd)
        self.paths.append(path)
        process = await ctx.tmux.start_client("wait-for", "hold-" + os.urandom(8).hex())
        await anyio.Path(args.pid_file).write_text(str(process.pid))
        await ctx.tmux.run(("wait-for", "-S", args.ready))
        await process.wait()
        return Held()


@hookimpl
def register_tools(registry):
    registry.add(Hold)
'''


def connections_settle(tmux_server: Any, count: int, timeout: float = 10.0) -> int:
    """The tmux server's client connections once they number ``count`` (bounded poll: tmux
    closes a gone client's socket when it next reads it, and sends no event for it)."""
    return int(eventually_blocking(
        tmux_server.connections, lambda now: now == count,
        within=timeout, every=0.01, last_on_timeout=True,
    ))


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    return {**env, **extra}


class RawSession:
    """The launcher as a subprocess, written to and read from as newline-delimited JSON-RPC."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [launcher()], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.buffer = b""
        self.seen: list[dict[str, Any]] = []  # every message read
        self.selector = selectors.DefaultSelector()
        assert self.process.stdout is not None
        self.selector.register(self.process.stdout, selectors.EVENT_READ)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        self.process.stdin.flush()

    def reply(self, request_id: int, timeout: float = 20) -> dict[str, Any]:
        """Read lines until the response to ``request_id`` (bounded)."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(line)
                self.seen.append(message)
                if message.get("id") == request_id:
                    return message  # type: ignore[no-any-return]
            left = deadline - time.monotonic()
            assert left > 0, f"no reply to request {request_id}"
            if self.selector.select(left):
                chunk = os.read(self.process.stdout.fileno(), 65536)
                assert chunk, f"launcher closed stdout: {self.process.stderr.read().decode()}"  # type: ignore[union-attr]
                self.buffer += chunk

    def handshake(self) -> None:
        self.send({"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"}}})
        assert self.reply(1)["result"]["serverInfo"]["name"] == "muxport"
        self.send({"method": "notifications/initialized"})

    def close_stdin_and_time_exit(self) -> tuple[int, float]:
        """Close stdin; the time from then until the process exits."""
        assert self.process.stdin is not None
        return self.time_exit(self.process.stdin.close)

    def signal_and_time_exit(self, signum: int) -> tuple[int, float]:
        """Send ``signum`` (stdin stays open); the time from then until the process exits."""
        return self.time_exit(lambda: self.process.send_signal(signum))

    def time_exit(self, end: Callable[[], None]) -> tuple[int, float]:
        return time_exit(self.process, end)


def test_eof_exits_zero_within_a_second(tmux_server, shell_pane, tmp_path):
    pane = shell_pane("bash")
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    session = RawSession(clean_env({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                                    "TMPDIR": str(private_tmp)}))
    session.handshake()
    session.send({"id": 2, "method": "tools/list"})
    names = {tool["name"] for tool in session.reply(2)["result"]["tools"]}
    assert "list_panes" in names
    session.send({"id": 3, "method": "tools/call",
                  "params": {"name": "list_panes", "arguments": {}}})
    panes = session.reply(3)["result"]["structuredContent"]["panes"]
    assert [p["id"] for p in panes] == [pane.pane_id]
    code, elapsed = session.close_stdin_and_time_exit()
    assert code == 0
    assert elapsed < 1.0, f"exit took {elapsed:.2f} s after EOF"
    assert tmux_server.clients() == []
    assert list(private_tmp.iterdir()) == []
    # stderr is no terminal: nothing on it; the startup line (how to watch the served
    # server) came to the client as a log message right after the initialize answer
    assert session.process.stderr.read() == b""  # type: ignore[union-attr]
    assert session.seen[1]["method"] == "notifications/message", session.seen
    greeting = session.seen[1]["params"]
    assert greeting["level"] == "info" and greeting["logger"] == "muxport"
    assert greeting["data"].endswith(
        f"watch it with: {tmux_server.binary} -S {tmux_server.socket_path} attach -r")
    # the served server is left running
    assert tmux_server.lines("list-panes", "-a", "-F", "#{pane_id}") == [pane.pane_id]


def test_eof_during_a_call_reaps_its_tmux_client_and_private_file(
    tmux_server, tmp_path, fake_distribution
):
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    site = fake_distribution("hold", HOLD_PLUGIN)
    pid_file = tmp_path / "client.pid"
    session = RawSession(clean_env({
        "LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "hold",
        "TMPDIR": str(private_tmp), "PYTHONPATH": str(site),
    }))
    session.handshake()
    session.send({"id": 2, "method": "tools/call", "params": {
        "name": "hold_client", "arguments": {"ready": "held", "pid_file": str(pid_file)}}})
    tmux_server.wait_for("held")  # the tool has started its client and written its file
    client_pid = int(pid_file.read_text())  # -1: a client over the socket, no process
    assert client_pid == -1 or Path(f"/proc/{client_pid}").exists()
    assert connections_settle(tmux_server, 1) == 1  # the wait-for client, forked or not
    assert len(list(private_tmp.iterdir())) == 1
    code, elapsed = session.close_stdin_and_time_exit()
    assert code == 0
    # the call never returns by itself: it had the grace after EOF, then was cut short
    answer = session.reply(2)["result"]
    assert answer["isError"] and answer["_meta"]["error_code"] == "cut_short", answer
    assert elapsed < GRACE + 1.5, f"exit took {elapsed:.2f} s after EOF"
    assert not Path(f"/proc/{client_pid}").exists(), "the wait-for client outlived the server"
    assert connections_settle(tmux_server, 0) == 0, "a tmux client outlived the server"
    assert list(private_tmp.iterdir()) == []
    assert tmux_server.clients() == []

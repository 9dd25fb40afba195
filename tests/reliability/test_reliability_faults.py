"""Faults: the tmux server killed under a wait, a pane killed under a run, a pane respawned
under a cursor, frames no client should send, and a client that goes away mid-wait.
"""

# The suite observes files, /proc and tmux, which send no events: bounded polls are the wait.
# ruff: noqa: ASYNC240

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from muxport._internal.shutdown import CUT, GRACE
from muxport.testing import TmuxServer, answer_of, eventually
from reliability_kit import (
    STATS,
    RawLauncher,
    error_code,
    processes_using,
)

pytestmark = pytest.mark.timeout(120)
PROMPTLY = 3.0  # seconds from the fault to the answer
# The command says when it runs: a file named after its pane appears in the sandbox.
SLEEPER = 'touch "started-$TMUX_PANE"; sleep 30'


def outcome(result: Any) -> str | None:
    """The outcome field of an answer, or the error code of a tool error."""
    if result.is_error:
        return error_code(result)
    return (result.structured_content or {}).get("outcome")


def restart(server: TmuxServer) -> None:
    server.cmd("-f", str(server.dir / "tmux.conf"), "start-server")


async def require(client: Any, *names: str) -> None:
    listed = {t.name for t in (await client.list_tools()).tools}
    missing = [n for n in names if n not in listed]
    if missing:
        STATS.not_exercised.update(missing)
        pytest.fail(f"not installed yet, so not exercised: {missing}")


def wait_calls(pane_id: str) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "wait_for_text": (
            "wait_for_text",
            {"pane_id": pane_id, "patterns": ["never-shown"], "timeout": 30},
        ),
        "wait_for_channel": ("wait_for_channel", {"channel": "reliability-never", "timeout": 30}),
        "run_shell_command": (
            "run_shell_command",
            {"pane_id": pane_id, "command": SLEEPER, "timeout": 30},
        ),
    }


async def test_server_killed_under_each_wait_is_server_gone(
    stdio_client, tmux_server, sandbox, all_toolsets
):
    async with stdio_client(toolsets=all_toolsets) as client:
        await require(client, "wait_for_text", "wait_for_channel", "run_shell_command")
        for name in ("wait_for_text", "wait_for_channel", "run_shell_command"):
            pane = tmux_server.shell_pane("bash")
            # Its tmux client, forked or over the socket, is one more connection.
            # (the pane's own ready signal may still be closing: let it go first)
            before = await eventually(tmux_server.connections, lambda n: n == 0,
                                      within=5, last_on_timeout=True)
            tool, args = wait_calls(pane.pane_id)[name]
            answers: list[Any] = []
            killed_at = 0.0
            async with anyio.create_task_group() as group:

                async def call(
                    tool: str = tool, args: dict[str, Any] = args, answers: list[Any] = answers
                ) -> None:
                    answers.append(await client.call_tool(tool, args))
                    answers.append(time.monotonic())

                group.start_soon(call)
                await eventually(
                    lambda before=before: tmux_server.connections() > before,
                    what=f"{name}: its tmux client", every=0.01,
                )
                if name == "run_shell_command":  # wait until the command itself runs
                    await eventually((sandbox / f"started-{pane.pane_id}").exists, every=0.01)
                tmux_server.cmd("kill-server")
                killed_at = time.monotonic()
                STATS.faults += 1
            result, answered_at = answers
            assert outcome(result) == "server_gone", (name, result)
            assert answered_at - killed_at < PROMPTLY, (name, answered_at - killed_at)
            restart(tmux_server)


async def test_pane_killed_mid_run_is_pane_gone(
    stdio_client, shell_pane, tmux_server, sandbox, all_toolsets
):
    pane = shell_pane("bash")
    async with stdio_client(toolsets=all_toolsets) as client:
        await require(client, "run_shell_command")
        answers: list[Any] = []
        async with anyio.create_task_group() as group:

            async def run() -> None:
                answers.append(
                    await client.call_tool(
                        "run_shell_command",
                        {"pane_id": pane.pane_id, "command": SLEEPER, "timeout": 30},
                    )
                )
                answers.append(time.monotonic())

            group.start_soon(run)
            await eventually((sandbox / f"started-{pane.pane_id}").exists, every=0.01)
            tmux_server.cmd("kill-pane", "-t", pane.pane_id)
            killed_at = time.monotonic()
            STATS.faults += 1
        result, answered_at = answers
        assert outcome(result) == "pane_gone", result.structured_content
        assert answered_at - killed_at < PROMPTLY
        alive = await client.call_tool("list_sessions", {})
        assert not alive.is_error


async def test_respawned_pane_refuses_the_old_cursor(
    stdio_client, shell_pane, tmux_server, sandbox, all_toolsets
):
    pane = shell_pane("bash")
    async with stdio_client(toolsets=all_toolsets) as client:
        await require(client, "capture_since")
        first = await client.call_tool("capture_since", {"pane_id": pane.pane_id})
        assert not first.is_error, first.content
        cursor = answer_of(first)["cursor"]
        tmux_server.cmd("respawn-pane", "-k", "-t", pane.pane_id, "bash --norc -i")
        STATS.faults += 1
        again = await client.call_tool("capture_since", {"pane_id": pane.pane_id, "cursor": cursor})
        assert again.is_error, again.structured_content
        assert error_code(again) not in (None, "internal_error")
        assert "capture_since" in again.content[0].text  # names the recovery


async def test_bad_frames_are_survived(tmux_server, shell_pane, sandbox, all_toolsets):
    shell_pane("bash")
    raw = RawLauncher(
        {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": ",".join(all_toolsets)}
    )
    try:
        raw.initialize()
        raw.send(b"this is not json\n")
        raw.send(b'{"jsonrpc": "2.0", "id": \n')
        STATS.faults += 2
        huge = raw.call("list_sessions", {"x": "a" * (8 << 20)})  # an 8 MiB frame
        STATS.faults += 1
        answer = raw.read(huge, timeout=30)
        assert "error" in answer or answer["result"].get("isError"), str(answer)[:300]
        ok = raw.read(raw.call("list_sessions", {}), timeout=10)
        assert not ok["result"].get("isError"), ok
        assert ok["result"]["structuredContent"]["count"] == 1
        assert raw.process.poll() is None
    finally:
        raw.kill()


async def test_eof_mid_wait_exits_cleanly(tmux_server, shell_pane, sandbox, all_toolsets):
    pane = shell_pane("bash")
    other = shell_pane("bash")
    private = Path(tempfile.mkdtemp(prefix="mxr-t"))  # the launcher's TMPDIR: its private files
    raw = RawLauncher(
        {
            "LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
            "LIBTMUX_TOOLSETS": ",".join(all_toolsets),
            "TMPDIR": str(private),
        }
    )
    server_pid = int(tmux_server.cmd("display-message", "-p", "#{pid}"))
    try:
        raw.initialize()
        assert len(raw.read(raw.request("tools/list", {}))["result"]["tools"]) > 0
        calls = wait_calls(pane.pane_id)
        waits = [raw.call(*calls["wait_for_text"]), raw.call(*calls["wait_for_channel"]),
                 raw.call("run_shell_command",
                          {"pane_id": other.pane_id, "command": SLEEPER, "timeout": 30})]
        await eventually(lambda: tmux_server.connections() >= 3, every=0.01)  # forked or socket
        await eventually((sandbox / f"started-{other.pane_id}").exists, every=0.01)
        started = time.monotonic()
        status = raw.close(within=GRACE + 3)
        STATS.faults += 1
        assert status == 0, f"exit status {status} after EOF (None: still running)"
        # every wait was answered, cut short after the grace, before the exit
        assert time.monotonic() - started < GRACE + 2 * CUT + 1.0
        for answer in raw.lines.answers(waits, timeout=1):
            result = answer["result"]["structuredContent"]
            assert result["outcome"] == "timed_out" and result["note"].startswith("cut short")
        assert tmux_server.clients() == []
        assert tmux_server.buffers() == []
        assert processes_using(tmux_server.socket_path, except_pid=server_pid) == []
        await eventually(lambda: tmux_server.connections() == 0, every=0.01)
        assert sorted(p.name for p in private.iterdir()) == []
    finally:
        raw.kill()
        shutil.rmtree(private, ignore_errors=True)


async def test_short_waits_on_many_sessions_keep_tmux_alive(
    stdio_client, tmux_server, shell_pane, sandbox, all_toolsets
):
    """Control clients started and stopped in a hurry (tmux 3.3a crashes when one leaves
    before it is attached while another exists): the tmux server must survive."""
    panes = [shell_pane("bash") for _ in range(4)]  # four sessions: four control clients
    server_pid = int(tmux_server.cmd("display-message", "-p", "#{pid}"))
    async with stdio_client(toolsets=all_toolsets) as client:
        await require(client, "wait_for_text")

        async def burst(offset: int) -> None:
            for i in range(25):
                pane = panes[(offset + i) % len(panes)]
                result = await client.call_tool(
                    "wait_for_text", {"pane_id": pane.pane_id, "timeout": 0.01 * (i % 3)}
                )
                assert not result.is_error, result.content

        async with anyio.create_task_group() as group:
            for offset in range(12):
                group.start_soon(burst, offset)
        STATS.faults += 1
        assert Path(f"/proc/{server_pid}").exists(), "the tmux server crashed"
        assert not (await client.call_tool("list_sessions", {})).is_error

"""A stopped tmux server (SIGSTOP): every call answers tmux_unresponsive within the
documented bound (docs/reliability.md), waits in flight notice it too, no tmux client is
left running or unreaped, and everything works again once the server resumes."""

# The suite observes /proc, which sends no events: bounded polls are the wait.
# ruff: noqa: ASYNC240

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from muxport.testing import eventually
from reliability_kit import STATS, children_named, error_code, tmux_children

pytestmark = pytest.mark.timeout(120)
ANSWER_WITHIN = 10.0  # seconds from the stop to a tmux_unresponsive answer (documented)
STOPPED_FOR = 20.0


def zombies_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if int(ppid) == pid and state == "Z":
            found.append(int(entry.name))
    return found


async def test_stopped_server_answers_unresponsive_then_recovers(
    stdio_client, tmux_server, shell_pane, sandbox, all_toolsets
):
    pane, waited, runner = shell_pane("bash"), shell_pane("bash"), shell_pane("bash")
    server_pid = int(tmux_server.cmd("display-message", "-p", "#{pid}"))
    async with stdio_client(toolsets=all_toolsets) as client:
        (launcher,) = children_named("muxport")
        calls: dict[str, tuple[str, dict[str, Any]]] = {
            "read": ("capture_pane", {"pane_id": pane.pane_id}),
            "input": ("send_keys", {"pane_id": pane.pane_id, "keys": ["echo hi", "Enter"]}),
            "run": ("run_shell_command",
                    {"pane_id": runner.pane_id, "command": "echo ran", "timeout": 3}),
        }
        waits: dict[str, tuple[str, dict[str, Any]]] = {
            "wait_for_text": ("wait_for_text",
                              {"pane_id": waited.pane_id, "patterns": ["never"], "timeout": 60}),
            "wait_for_channel": ("wait_for_channel", {"channel": "stall-never", "timeout": 60}),
        }
        answers: dict[str, tuple[Any, float]] = {}
        stopped_at = 0.0

        async def call(label: str, tool: str, args: dict[str, Any]) -> None:
            result = await client.call_tool(tool, args)
            answers[label] = (result, time.monotonic())

        base = tmux_server.connections()
        try:
            async with anyio.create_task_group() as group:
                for label, (tool, args) in waits.items():  # in flight before the stop
                    group.start_soon(call, label, tool, args)
                # the waits' tmux clients (forked or over the socket)
                await eventually(lambda: tmux_server.connections() >= base + 2, every=0.01)
                os.kill(server_pid, signal.SIGSTOP)
                stopped_at = time.monotonic()
                STATS.stalls += 1
                for label, (tool, args) in calls.items():
                    group.start_soon(call, label, tool, args)
            for label, (result, answered_at) in answers.items():
                assert error_code(result) == "tmux_unresponsive", (label, result)
                assert result.meta["retryable"] is True
                assert "did not answer" in result.content[0].text
                assert answered_at - stopped_at < ANSWER_WITHIN, (label, answered_at - stopped_at)
                print(f"{label}: tmux_unresponsive after {answered_at - stopped_at:.1f} s")
            assert sorted(answers) == sorted([*calls, *waits])
            # every tmux client started meanwhile was killed and reaped
            left = {p: Path(f"/proc/{p}/cmdline").read_bytes() for p in tmux_children(launcher)}
            assert left == {} and zombies_of(launcher) == []
            await anyio.sleep(max(0.0, stopped_at + STOPPED_FOR - time.monotonic()))
        finally:
            os.kill(server_pid, signal.SIGCONT)
        # the socket clients closed meanwhile are gone once the server runs again
        await eventually(lambda: tmux_server.connections() <= base, every=0.01)
        for label, (tool, args) in calls.items():
            result = await client.call_tool(tool, args)
            assert not result.is_error, (label, result.content)
        ran = await client.call_tool("run_shell_command", calls["run"][1])
        assert ran.structured_content["outcome"] == "completed"
        assert ran.structured_content["output"] == ["ran"]
        quick = await client.call_tool(
            "wait_for_text", {**waits["wait_for_text"][1], "timeout": 0.2})
        assert quick.structured_content["outcome"] == "timed_out"
        assert not (await client.call_tool("list_sessions", {})).is_error

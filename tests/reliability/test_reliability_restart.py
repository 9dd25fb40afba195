"""A tmux server restarted at the same path is the server muxport serves from then on
(docs/reliability.md, "A moved socket is not a dead server"): what muxport learned of the
first one (its process) must not make it take the second one's moved socket for a dead
server (issue 30)."""

from __future__ import annotations

import glob
import os
import subprocess

import anyio
import pytest
from muxport._internal.facts import SEND_KEYS_CHECKS_CLIENT, version_key
from muxport.testing import eventually
from reliability_kit import STATS, error_code

pytestmark = pytest.mark.timeout(120)

MOVED_FOR = 3.0


def put_back(moved: str, socket: str) -> None:
    if os.path.exists(moved):
        os.rename(moved, socket)


async def test_a_restarted_server_whose_socket_moves_is_not_dead(
    stdio_client, tmux_server, shell_pane
):
    socket = tmux_server.socket_path
    moved = socket + ".moved"
    async with stdio_client(toolsets=["inspect", "manage", "execute"]) as client:
        listed = await client.call_tool("list_sessions", {})  # the first server answers
        assert not listed.is_error, listed.content
        tmux_server.cmd("kill-server")
        STATS.faults += 1
        pane = shell_pane("bash")  # a new server at the same path
        first = await client.call_tool("list_panes", {})
        assert [p["id"] for p in first.structured_content["panes"]] == [pane.pane_id]
        answers = []

        async def run() -> None:
            answers.append(await client.call_tool("run_shell_command", {
                "pane_id": pane.pane_id, "command": "echo started; sleep 3; echo x",
                "timeout": 20}))

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(run)
                await eventually(lambda: "started" in pane.screen(), every=0.02)
                os.rename(socket, moved)
                STATS.faults += 1
                listed = await client.call_tool("list_sessions", {})
                assert error_code(listed) == "socket_missing", listed.content
                assert "create_session" not in listed.content[0].text
                await anyio.sleep(MOVED_FOR)  # the move lasts past the run's end
                put_back(moved, socket)
        finally:
            put_back(moved, socket)
        (answer,) = answers
        if answer.is_error:  # the run outlived the move: it names the run
            assert error_code(answer) == "socket_missing", answer.content
            answer = await client.call_tool(
                "wait_for_run", {"run_id": answer.meta["run_id"], "timeout": 15})
        got = answer.structured_content
        assert (got["outcome"], got["output"], got["exit_status"]) == (
            "completed", ["started", "x"], 0), got


def other_tmux(version: str) -> str | None:
    """A tmux binary on the other side of 3.7 (``send-keys -c``) from ``version``: the
    ``MUXPORT_TEST_TMUX_OTHER`` binary, or one of the matrix's builds (.ci/run)."""
    want_new = version_key(version) < SEND_KEYS_CHECKS_CLIENT
    found = [os.environ.get("MUXPORT_TEST_TMUX_OTHER", ""), "/usr/bin/tmux",
             *sorted(glob.glob(os.path.expanduser("~/.cache/muxport-tmux/*/bin/tmux")))]
    for binary in filter(os.path.exists, found):
        done = subprocess.run([binary, "-V"], capture_output=True, text=True, check=False)
        said = done.stdout.split()[-1] if done.stdout.split() else ""
        if said and (version_key(said) >= SEND_KEYS_CHECKS_CLIENT) == want_new:
            return binary
    return None


def clients(binary: str, socket: str) -> str:
    return subprocess.run([binary, "-S", socket, "list-clients"], capture_output=True,
                          text=True, timeout=10, check=False).stdout


async def test_a_server_restarted_by_another_tmux_is_spoken_to_as_that_one(
    stdio_client, tmux_server
):
    """What muxport learned of the first server (its version: ``send-keys -c`` on 3.7+,
    which a read-only feed needs) is forgotten once another process listens at the path."""
    if os.environ.get("MUXPORT_TRANSPORT", "") == "fork":
        pytest.skip("a forked client of one side of 3.7 does not list a server of the other")
    binary = other_tmux(tmux_server.version)
    if binary is None:
        pytest.skip("no tmux of the other side of 3.7 here (MUXPORT_TEST_TMUX_OTHER)")
    socket = tmux_server.socket_path
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        assert not (await client.call_tool("list_sessions", {})).is_error
        tmux_server.cmd("kill-server")
        STATS.faults += 1
        await anyio.run_process([binary, "-S", socket, "-f", "/dev/null", "new-session", "-d",
                                 "-x", "80", "-y", "24", "bash --norc"])
        try:
            listed = await client.call_tool("list_panes", {})
            (pane,) = [p["id"] for p in listed.structured_content["panes"]]
            answers = []

            async def wait() -> None:
                answers.append(await client.call_tool("wait_for_text", {
                    "pane_id": pane, "patterns": ["hello-restart"], "timeout": 15}))

            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await eventually(lambda: clients(binary, socket))  # the wait's feed is on
                sent = await client.call_tool(
                    "send_keys", {"pane_id": pane, "keys": ["echo hello-restart", "Enter"]})
                assert not sent.is_error, sent.content
            (waited,) = answers
            assert waited.structured_content["outcome"] == "matched", waited.content
        finally:
            await anyio.run_process([binary, "-S", socket, "kill-server"], check=False)

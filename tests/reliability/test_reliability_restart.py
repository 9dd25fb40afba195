"""A tmux server restarted at the same path is the server muxport serves from then on
(docs/reliability.md, "A moved socket is not a dead server"): what muxport learned of the
first one (its process) must not make it take the second one's moved socket for a dead
server (issue 30)."""

from __future__ import annotations

import os

import anyio
import pytest
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

"""The socket transport against a served server: a restart under calls in flight, and a
person's server that looks the same while muxport serves it."""

from __future__ import annotations

import os
import signal
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.timeout(120)
# The suite runs again with the forked client forced (.ci/run): then these check the fallback.
SOCKET = os.environ.get("MUXPORT_TRANSPORT", "") != "fork"


def outcome(result: Any) -> str:
    if result.is_error:
        return str((result.meta or {}).get("error_code"))
    return str((result.structured_content or {}).get("outcome", "ok"))


async def test_server_killed_and_restarted_under_calls_in_flight(
    mcp_client, tmux_server, shell_pane
) -> None:
    pane = shell_pane("dash")
    async with mcp_client(toolsets=["inspect", "manage"]) as (client, app):
        assert app.connection.tmux.wire.enabled == SOCKET
        registered = anyio.Event()

        async def progress(value: float, total: float | None, message: str | None) -> None:
            registered.set()

        answers: list[str] = []
        quick: list[str] = []
        killed = anyio.Event()

        async def wait() -> None:
            answers.append(outcome(await client.call_tool(
                "wait_for_channel", {"channel": "mx-restart", "timeout": 30},
                progress_callback=progress,
            )))

        async def listings() -> None:
            while not killed.is_set() or len(quick) < 20:
                capture = {"pane_id": pane.pane_id}
                quick.append(outcome(await client.call_tool("capture_pane", capture)))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await registered.wait()
                group.start_soon(listings)
                group.start_soon(listings)
                pid = int(tmux_server.cmd("display-message", "-p", "#{pid}"))
                os.kill(pid, signal.SIGKILL)  # no goodbye: clients see the socket end
                killed.set()
        assert answers == ["server_gone"]
        assert set(quick) <= {"ok", "server_gone"} and "server_gone" in quick, quick
        # A new server on the same socket (the dead one's socket file is still there).
        tmux_server.cmd("-f", str(tmux_server.dir / "tmux.conf"), "new-session", "-d", "-s",
                        "reborn")
        listed = await client.call_tool("list_sessions", {})
        assert not listed.is_error, listed.content
        names = [s["name"] for s in listed.structured_content["sessions"]]
        assert names == ["reborn"]


async def test_a_persons_server_shows_no_client_no_attach_no_hook(
    mcp_client, tmux_server, shell_pane
) -> None:
    pane = shell_pane("bash")
    tmux_server.cmd("set-hook", "-g", "client-attached", "set-option -g @mx-attached seen")
    tmux_server.cmd("set-hook", "-g", "client-session-changed", "set-option -g @mx-changed seen")

    def looks() -> tuple[list[str], str, str, str]:
        return (
            tmux_server.clients(),
            tmux_server.cmd("display-message", "-p", "-t", pane.session_id,
                            "#{session_attached}").strip(),
            tmux_server.cmd("show-options", "-gqv", "@mx-attached").strip(),
            tmux_server.cmd("show-options", "-gqv", "@mx-changed").strip(),
        )

    before = looks()
    assert before == ([], "0", "", "")
    async with mcp_client(toolsets=["inspect", "manage", "execute"]) as (client, app):
        assert app.connection.tmux.wire.enabled == SOCKET
        registered = anyio.Event()

        async def progress(value: float, total: float | None, message: str | None) -> None:
            registered.set()

        seen_meanwhile: list[Any] = []
        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:

                async def wait() -> None:
                    await client.call_tool(
                        "wait_for_channel", {"channel": "mx-look", "timeout": 30},
                        progress_callback=progress,
                    )

                group.start_soon(wait)
                await registered.wait()
                seen_meanwhile.append(looks())  # a waiting client is connected now
                assert tmux_server.connections() >= 1
                tmux_server.cmd("wait-for", "-S", "mx-look")
            for name, args in (
                ("list_sessions", {}),
                ("capture_pane", {"pane_id": pane.pane_id}),
                ("run_shell_command", {"pane_id": pane.pane_id, "command": "echo hi"}),
            ):
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, result.content)
    assert seen_meanwhile == [before]
    assert looks() == before

"""What a new user does first, through the installed launcher over real stdio, on whatever
tmux the tests run on (``--tmux-bin``; CI runs it on every version of the matrix) and with
both transports (docs/tmux-facts.md, "Versions"): create a session, run commands in bash,
zsh and dash, capture, wait for text and for a channel, collect a run that outlived its
timeout, split, kill."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from execute_kit import call, run

pytestmark = pytest.mark.timeout(120)
ALL = ["inspect", "manage", "execute", "teardown"]


@pytest.mark.parametrize("transport", ["socket", "fork"])
async def test_a_new_users_first_session(stdio_client, shell_pane, tmux_server, transport):
    panes = {shell: shell_pane(shell).pane_id for shell in ("bash", "zsh", "dash")}
    env = {"MUXPORT_TRANSPORT": "fork"} if transport == "fork" else {"MUXPORT_TRANSPORT": ""}
    async with stdio_client(toolsets=ALL, env=env) as client:
        made = await call(client, "create_session", {"session_name": "mx-new"})
        assert made["pane_id"].startswith("%") and made["id"].startswith("$")
        listed = await call(client, "list_sessions", {})
        assert "mx-new" in [s["name"] for s in listed["sessions"]]
        for shell, pane in panes.items():
            ran = await run(client, pane, f"echo {shell}-said; exit 3")
            assert (ran["output"], ran["exit_status"]) == ([f"{shell}-said"], 3), shell
            shown = await call(client, "capture_pane", {"pane_id": pane})
            assert f"{shell}-said" in shown["content"], shell

        pane = panes["bash"]
        await call(client, "send_keys", {"pane_id": pane, "literal": True, "enter": True,
                                         "keys": ["printf '%s-%s\\n' mx ready"]})
        seen = await call(client, "wait_for_text", {"pane_id": pane, "patterns": ["mx-ready"],
                                                    "timeout": 10})
        assert seen["outcome"] in ("matched", "present_at_entry")

        got: dict[str, Any] = {}

        async def wait() -> None:
            got["out"] = await call(client, "wait_for_channel",
                                    {"channel": "mx-new-user", "timeout": 20})

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await call(client, "signal_channel", {"channel": "mx-new-user"})
        assert got["out"]["outcome"] == "signalled"

        release = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for mx-release"
        slow = await run(client, panes["zsh"], f"echo begun; {release}; exit 4", timeout=1)
        assert slow["outcome"] == "timed_out" and slow["output"] == ["begun"]
        tmux_server.cmd("wait-for", "-S", "mx-release")
        done = await call(client, "wait_for_run", {"run_id": slow["run_id"], "timeout": 20})
        assert (done["outcome"], done["exit_status"]) == ("completed", 4)

        split = await call(client, "split_window", {"pane_id": made["pane_id"]})
        assert split["window_id"] == made["window_id"] and split["id"] != made["pane_id"]
        killed = await call(client, "kill_pane", {"pane_id": split["id"]})
        assert killed["killed"] is True
        gone = await call(client, "kill_session", {"session_id": made["id"]})
        assert gone["killed"] is True
    assert "mx-new" not in tmux_server.cmd("list-sessions", "-F", "#{session_name}")
    assert tmux_server.cmd("list-clients") == ""

"""Kill tools with muxport "inside" a pane of the served server: the caller pane and what
holds it are refused unless confirm_self; unrelated targets go without ceremony; the
tmux server itself is never ended; teardown is not a default on an existing daemon."""

from __future__ import annotations

import subprocess
from typing import Any

from muxport.testing import CheckedCalls


def inside(tmux_server: Any, pane_id: str) -> dict[str, str]:
    return {"TMUX": f"{tmux_server.socket_path},1,0", "TMUX_PANE": pane_id}


def exists(tmux_server: Any, target: str) -> bool:
    # list-panes fails on a missing target (display-message would answer anyway).
    done = subprocess.run(
        [tmux_server.binary, "-S", tmux_server.socket_path, "list-panes", "-t", target],
        capture_output=True,
        timeout=10,
        check=False,
    )
    return done.returncode == 0


def refused(result: Any, code: str = "caller_pane") -> str:
    assert result.is_error, result.structured_content
    assert result.meta["error_code"] == code
    assert result.meta["delivery"] == "not_sent"
    return str(result.content[0].text)


async def test_caller_and_what_holds_it_are_refused(mcp_client, shell_pane, tmux_server):
    a = shell_pane("bash")  # the caller's session, window and pane
    b = shell_pane("dash")
    shell_pane("dash")  # keeps a session alive to the end
    neighbour = tmux_server.cmd(
        "split-window", "-d", "-t", a.pane_id, "-P", "-F", "#{pane_id}", "cat"
    ).strip()
    other_window = tmux_server.cmd(
        "new-window", "-d", "-t", a.session_id + ":", "-P", "-F", "#{window_id} #{pane_id}", "cat"
    ).split()
    async with mcp_client(toolsets=["teardown"], caller_env=inside(tmux_server, a.pane_id)) as (
        client,
        _app,
    ):
        text = refused(await client.call_tool("kill_pane", {"pane_id": a.pane_id}))
        assert "confirm_self" in text and a.pane_id in text
        refused(await client.call_tool("kill_window", {"window_id": a.window_id}))
        refused(await client.call_tool("kill_session", {"session_id": a.session_id}))
        assert all(exists(tmux_server, t) for t in (a.pane_id, a.window_id, a.session_id))

        # Unrelated targets, even beside the caller, go without ceremony.
        gone = await client.call_tool("kill_pane", {"pane_id": neighbour})
        assert gone.structured_content == {
            "pane_id": neighbour,
            "killed": True,
            "window_ended": False,
        }
        assert not exists(tmux_server, neighbour) and exists(tmux_server, a.window_id)
        gone = await client.call_tool("kill_window", {"window_id": b.window_id})
        assert gone.structured_content["session_ended"] is True
        assert not exists(tmux_server, b.session_id)

        # confirm_self proceeds: the caller's pane was its window's last pane.
        mine = await client.call_tool("kill_pane", {"pane_id": a.pane_id, "confirm_self": True})
        assert mine.structured_content["window_ended"] is True
        assert not exists(tmux_server, a.pane_id) and not exists(tmux_server, a.window_id)
        assert exists(tmux_server, a.session_id)

    window_id, pane_id = other_window
    async with mcp_client(toolsets=["teardown"], caller_env=inside(tmux_server, pane_id)) as (
        client,
        _app,
    ):
        refused(await client.call_tool("kill_window", {"window_id": window_id}))
        assert exists(tmux_server, window_id)
        done = await client.call_tool("kill_window", {"window_id": window_id, "confirm_self": True})
        assert done.structured_content["session_ended"] is True
        assert not exists(tmux_server, a.session_id)


async def test_kill_session_confirm_and_the_server_survives(mcp_client, shell_pane, tmux_server):
    a = shell_pane("dash")
    async with mcp_client(toolsets=["teardown"], caller_env=inside(tmux_server, a.pane_id)) as (
        client,
        _app,
    ):
        refused(await client.call_tool("kill_session", {"session_id": a.session_id}))
        # A server that exits when empty is never ended, not even with confirm_self.
        tmux_server.cmd("set-option", "-s", "exit-empty", "on")
        text = refused(
            await client.call_tool(
                "kill_session", {"session_id": a.session_id, "confirm_self": True}
            ),
            code="would_end_server",
        )
        assert "create_session" in text
        refused(
            await client.call_tool("kill_pane", {"pane_id": a.pane_id, "confirm_self": True}),
            code="would_end_server",
        )
        assert exists(tmux_server, a.session_id)
        tmux_server.cmd("set-option", "-s", "exit-empty", "off")
        done = await client.call_tool(
            "kill_session", {"session_id": a.session_id, "confirm_self": True}
        )
        assert done.structured_content["killed"] is True
        assert "keeps running" in done.structured_content["note"]
    assert tmux_server.cmd("list-sessions", "-F", "#{session_id}").strip() == ""
    assert tmux_server.cmd("display-message", "-p", "#{pid}").strip().isdigit()


async def test_unproven_caller_needs_confirm_self(mcp_client, shell_pane, tmux_server):
    a = shell_pane("dash")
    shell_pane("dash")
    env = {"TMUX": f"{tmux_server.socket_path},1,0"}  # no TMUX_PANE, not under any pane
    async with mcp_client(toolsets=["teardown"], caller_env=env) as (client, _app):
        text = refused(
            await client.call_tool("kill_pane", {"pane_id": a.pane_id}), code="caller_uncertain"
        )
        assert "confirm_self: true" in text
        assert exists(tmux_server, a.pane_id)
        done = await client.call_tool("kill_pane", {"pane_id": a.pane_id, "confirm_self": True})
        assert done.structured_content["killed"] is True
        missing = await client.call_tool("kill_pane", {"pane_id": a.pane_id, "confirm_self": True})
        assert missing.meta["error_code"] == "not_found"
        assert "list_panes" in missing.content[0].text
    assert not exists(tmux_server, a.pane_id)


async def test_teardown_over_stdio_inside_a_pane(stdio_client, shell_pane, tmux_server):
    a = shell_pane("bash")
    b = shell_pane("dash")
    c = shell_pane("dash")
    a.run("seq 1 200")
    assert int(tmux_server.cmd("display-message", "-p", "-t", a.pane_id, "#{history_size}")) > 0
    spare = tmux_server.cmd(
        "split-window", "-d", "-t", b.pane_id, "-P", "-F", "#{pane_id}", "cat"
    ).strip()
    async with stdio_client(toolsets=["teardown"], env=inside(tmux_server, a.pane_id)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(tools) == [
            "clear_pane_scrollback",
            "kill_pane",
            "kill_session",
            "kill_window",
        ]

        call = CheckedCalls(client)

        assert (await call("clear_pane_scrollback", pane_id=a.pane_id))["cleared"] is True
        assert (
            tmux_server.cmd("display-message", "-p", "-t", a.pane_id, "#{history_size}").strip()
            == "0"
        )

        for name, args in (
            ("kill_pane", {"pane_id": a.pane_id}),
            ("kill_window", {"window_id": a.window_id}),
            ("kill_session", {"session_id": a.session_id}),
        ):
            refused(await client.call_tool(name, args))
        assert exists(tmux_server, a.pane_id)

        assert (await call("kill_pane", pane_id=spare))["window_ended"] is False
        assert (await call("kill_window", window_id=b.window_id))["session_ended"] is True
        assert (await call("kill_session", session_id=c.session_id))["killed"] is True
    assert tmux_server.cmd("list-sessions", "-F", "#{session_id}").split() == [a.session_id]
    assert not exists(tmux_server, spare)


async def test_teardown_is_not_a_default_on_an_existing_server(stdio_client, shell_pane):
    shell_pane("dash")
    async with stdio_client() as client:  # LIBTMUX_SOCKET_PATH names an existing server
        names = {t.name for t in (await client.list_tools()).tools}
    assert "rename_window" in names and "wait_for_channel" in names
    assert not names & {"clear_pane_scrollback", "kill_pane", "kill_window", "kill_session"}


async def test_a_failing_after_kill_pane_hook_leaves_the_kill_answered(mcp_client, tmux_server,
                                                                        shell_pane):
    """The pane is gone when its after-hook fails: answered killed, with a note (a retry
    would only find it missing); docs/tmux-facts.md, "Hooks that fail"."""
    pane = shell_pane("dash")
    other = tmux_server.cmd("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane.pane_id,
                            "cat").strip()
    tmux_server.cmd("set-hook", "-g", "after-kill-pane", "command-prompt")
    async with mcp_client(toolsets=["teardown"]) as (client, _app):
        killed = await client.call_tool("kill_pane", {"pane_id": other})
    assert not killed.is_error, killed.content[0].text
    assert killed.structured_content["killed"] is True
    assert "no current client" in killed.structured_content["note"]
    assert not exists(tmux_server, other) and exists(tmux_server, pane.pane_id)

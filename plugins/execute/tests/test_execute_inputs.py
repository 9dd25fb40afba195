"""The input checks (docs/architecture.md, typing into panes): caller, dead, modes,
attended clients, synchronize-panes."""

from __future__ import annotations

import pytest
from muxport import Refused
from muxport.policy import check_input
from muxport.testing import tool_context

MARK = "typed-$((6*7))"


def attach(tmux_server, session_id: str, channel: str, readonly: bool) -> None:
    """A genuine tmux client attached to ``session_id``, running in a pane of another session."""
    tmux_server.cmd("set-hook", "-g", "client-attached", f"wait-for -S {channel}")
    flag = "-r " if readonly else ""
    tmux_server.cmd(
        "new-session", "-d", "-s", f"viewer-{channel}", "-x", "80", "-y", "24",
        f"env -u TMUX TERM=xterm {tmux_server.binary} -S {tmux_server.socket_path} "
        f"attach {flag}-t '{session_id}'",
    )
    tmux_server.wait_for(channel)
    tmux_server.cmd("set-hook", "-gu", "client-attached")


def typed(pane) -> bool:
    return any("typed-42" in line for line in pane.screen(history=True))


async def refused(client, pane_id: str, reason: str) -> str:
    result = await client.call_tool("send_keys", {"pane_id": pane_id, "keys": f"echo {MARK}",
                                                  "enter": True})
    assert result.is_error, "the send was not refused"
    assert result.meta["error_code"] == "refused" and result.meta["delivery"] == "not_sent"
    assert result.meta["reason"] == reason
    assert pane_id in result.meta["cohort"]
    pasted = await client.call_tool("paste_text", {"pane_id": pane_id, "text": f"echo {MARK}\n"})
    assert pasted.is_error and pasted.meta["reason"] == reason
    return result.content[0].text


async def test_caller_pane_is_refused(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("bash")
    env = {"TMUX": f"{tmux_server.socket_path},1,0", "TMUX_PANE": pane.pane_id}
    async with mcp_client(toolsets=["execute"], caller_env=env) as (client, _app):
        text = await refused(client, pane.pane_id, "caller")
    assert "list_panes" in text
    pane.run("true")
    assert not typed(pane)


async def test_unproven_caller_fails_closed(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("dash")
    env = {"TMUX": f"{tmux_server.socket_path},1,0"}  # TMUX_PANE missing, no pane ancestor
    async with mcp_client(toolsets=["execute"], caller_env=env) as (client, app):
        assert app.caller.relation == "unknown"
        text = await refused(client, pane.pane_id, "caller_unproven")
    assert "fail closed" in text
    pane.run("true")
    assert not typed(pane)


async def test_pane_in_copy_mode_is_refused_and_left_in_it(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("zsh")
    tmux_server.cmd("copy-mode", "-t", pane.pane_id)
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        text = await refused(client, pane.pane_id, "in_mode")
    assert "copy-mode" in text and "list_panes shows in_mode" in text
    assert tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{pane_in_mode}").strip() == "1"
    tmux_server.cmd("send-keys", "-t", pane.pane_id, "-X", "cancel")
    pane.run("true")
    assert not typed(pane)


async def test_two_stacked_modes_are_a_mode(mcp_client, tmux_server, shell_pane):
    """``#{pane_in_mode}`` counts the modes (format.c): a config's errors (or ``run-shell -t``
    output) in view-mode with copy-mode entered over it is 2, and still a pane in a mode
    (issue 30)."""
    pane = shell_pane("bash")
    tmux_server.cmd("run-shell", "-t", pane.pane_id, "echo from-run-shell")  # view-mode
    tmux_server.cmd("copy-mode", "-t", pane.pane_id)  # copy-mode over it
    assert tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{pane_in_mode}").strip() == "2"
    async with mcp_client(toolsets=["execute", "inspect"]) as (client, _app):
        text = await refused(client, pane.pane_id, "in_mode")
        ran = await client.call_tool("run_shell_command",
                                     {"pane_id": pane.pane_id, "command": f"echo {MARK}"})
        listed = await client.call_tool("list_panes", {"window_id": pane.window_id})
        info = await client.call_tool("get_pane_info", {"pane_id": pane.pane_id})
    assert "copy-mode" in text
    assert ran.is_error and ran.meta["reason"] == "in_mode", ran.content[0].text
    assert ran.meta["delivery"] == "not_sent"
    row = next(p for p in listed.structured_content["panes"] if p["id"] == pane.pane_id)
    assert row["in_mode"] is True
    assert info.structured_content["in_mode"] is True
    assert tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{pane_in_mode}").strip() == "2"
    tmux_server.cmd("send-keys", "-t", pane.pane_id, "-X", "cancel")  # copy-mode, then view-mode
    tmux_server.cmd("send-keys", "-t", pane.pane_id, "-X", "cancel")
    assert tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{pane_in_mode}").strip() == "0"
    pane.run("true")
    assert not typed(pane)


async def test_dead_and_input_disabled_panes_are_refused(mcp_client, tmux_server, shell_pane):
    dead, off = shell_pane("dash"), shell_pane("dash")
    tmux_server.cmd("set", "-p", "-t", dead.pane_id, "remain-on-exit", "on")
    tmux_server.kill_pane_program(dead.pane_id)
    tmux_server.cmd("select-pane", "-d", "-t", off.pane_id)
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        assert "respawn_pane" in await refused(client, dead.pane_id, "dead")
        await refused(client, off.pane_id, "input_off")
    tmux_server.cmd("select-pane", "-e", "-t", off.pane_id)
    off.run("true")
    assert not typed(off)


async def test_active_pane_of_a_read_write_client_is_attended(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("bash")
    hidden = tmux_server.cmd("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane.pane_id)
    attach(tmux_server, pane.session_id, "rw-attached", readonly=False)
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        text = await refused(client, pane.pane_id, "attended")
        beside = await client.call_tool("send_keys", {"pane_id": hidden.strip(), "keys": ["C-l"]})
    assert "split_window or create_window" in text
    assert not beside.is_error, "a pane the client does not show as active is not attended"
    pane.run("true")
    assert not typed(pane)


async def test_read_only_client_does_not_block_input(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("bash")
    attach(tmux_server, pane.session_id, "ro-attached", readonly=True)
    command = f"echo {MARK}; {tmux_server.binary} -S {tmux_server.socket_path} wait-for -S ro-typed"
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        result = await client.call_tool("send_keys", {"pane_id": pane.pane_id, "keys": [command],
                                                      "literal": True, "enter": True})
    assert not result.is_error, result.content[0].text
    tmux_server.wait_for("ro-typed")
    assert typed(pane)


async def test_synchronized_panes_form_the_cohort(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("bash")
    # A shell without the user's startup files (they may be slow, or wait on a lock);
    # keys typed before it reads them wait in the terminal.
    other = tmux_server.cmd("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", pane.pane_id,
                            "exec bash --noprofile --norc -i")
    other = other.strip()
    channel = '"sync-${TMUX_PANE#%}"'  # one channel per receiving pane, expanded by its shell
    signal = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for -S {channel}"
    async with mcp_client(toolsets=["execute"]) as (client, app):
        synced = await client.call_tool("set_synchronize_panes", {"window_id": pane.window_id,
                                                                 "enabled": True})
        assert synced.structured_content["synchronized_pane_ids"] == [pane.pane_id, other]
        sent = await client.call_tool("send_keys", {"pane_id": pane.pane_id, "keys": [signal],
                                                    "literal": True, "enter": True})
        assert sent.structured_content["resolved_pane_ids"] == [pane.pane_id, other]
        tmux_server.wait_for(f"sync-{pane.pane_id[1:]}")
        tmux_server.wait_for(f"sync-{other[1:]}")
        ctx = tool_context(app, "run_shell_command")
        with pytest.raises(Refused) as framed:
            await check_input(ctx, pane.pane_id, exactly_one=True)
        assert framed.value.data["cohort"] == [pane.pane_id, other]
        assert "set_synchronize_panes" in framed.value.message
        assert (await check_input(ctx, pane.pane_id, paste=True)).pane_ids == [pane.pane_id]
        tmux_server.cmd("copy-mode", "-t", other)  # a synchronized sibling in a mode refuses all
        blocked = await client.call_tool("send_keys", {"pane_id": pane.pane_id, "keys": ["C-l"]})
        assert blocked.is_error and blocked.meta["reason"] == "in_mode"
        assert "through synchronize-panes" in blocked.content[0].text
        tmux_server.cmd("set", "-p", "-t", other, "synchronize-panes", "off")  # pane-level wins
        alone = await client.call_tool("send_keys", {"pane_id": pane.pane_id, "keys": ["C-l"]})
        assert alone.structured_content["resolved_pane_ids"] == [pane.pane_id]
        assert (await check_input(ctx, pane.pane_id, exactly_one=True)).pane_ids == [pane.pane_id]

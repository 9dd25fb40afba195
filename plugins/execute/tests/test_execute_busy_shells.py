"""Shells that are between commands are not reading (docs/run-outcomes.md, "Before
typing"): prompt hooks and rc files that work in the shell itself keep the terminal in
canonical mode, like a pending ``read``; runs sent back to back, or right after a pane
starts, wait for the prompt instead of being refused."""

from __future__ import annotations

import anyio
import pytest
from muxport.testing import CheckedCalls, eventually, hooks

pytestmark = pytest.mark.timeout(180)

TOOLSETS = ["inspect", "execute"]


@pytest.mark.parametrize("config", sorted(hooks.HOOKS))
async def test_back_to_back_runs_wait_for_busy_prompt_hooks(stdio_client, rc_pane, config):
    shell, rc = hooks.HOOKS[config]
    if config == "zsh-plugins" and not hooks.PLUGINS_INSTALLED:
        pytest.skip("zsh-autosuggestions and zsh-syntax-highlighting are not installed")
    p = rc_pane(shell, rc).pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        for n in range(20):  # no gap between them
            done = await call("run_shell_command", {"pane_id": p, "command": f"echo run{n}"})
            assert (done["outcome"], done["output"], done["exit_status"]) == (
                "completed", [f"run{n}"], 0), (n, done)


@pytest.mark.parametrize("shell", ["bash", "zsh"])
async def test_a_run_right_after_a_slow_rc_file_starts(stdio_client, rc_pane, shell):
    """The rc file loops over builtins for about a second after the pane is ready."""
    p = rc_pane(shell, "\n".join([hooks.BUSY_LOOP] * 10), signal_first=True).pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        result = await client.call_tool(
            "run_shell_command", {"pane_id": p, "command": "echo ready"}
        )
    if result.is_error:
        meta = dict(result.meta or {})
        assert (meta["reason"], meta["retryable"]) == ("starting", True), result
    else:
        got = result.structured_content or {}
        assert (got["outcome"], got["output"]) == ("completed", ["ready"]), got


FISH_LINES = {
    # what a person left on fish's command line, and the refusal it gets
    "half-typed": (["echo half typed"], "line_not_empty", "echo half typed"),
    "open quote": (["echo 'open", "Enter"], "not_at_prompt", "echo 'open"),
    "pending read": (["read answer", "Enter"], "not_at_prompt", "read>"),
}


@pytest.mark.parametrize("case", sorted(FISH_LINES))
async def test_fish_line_is_checked_before_typing(stdio_client, fish_pane, case):
    keys, reason, still = FISH_LINES[case]
    pane = fish_pane()
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        await call("run_shell_command", {"pane_id": pane.pane_id, "command": "true"})
        for key in keys:  # a person, typing straight into tmux
            pane.server.cmd("send-keys", "-t", pane.pane_id, *(["-l", key] if key != "Enter"
                                                                  else ["Enter"]))
        await call("wait_for_text", {"pane_id": pane.pane_id, "patterns": [still],
                                     "timeout": 10})
        result = await client.call_tool(
            "run_shell_command", {"pane_id": pane.pane_id, "command": "echo ran"})
        assert result.is_error, result.structured_content
        assert dict(result.meta or {})["reason"] == reason, result
        screen = "\n".join(pane.screen())
        assert still in screen and "ran" not in screen.replace(still, ""), screen


@pytest.mark.parametrize("shell", ["yash", "mksh"])
async def test_more_shells_run_back_to_back_and_refuse_a_pending_read(stdio_client, rc_pane, shell):
    pane = rc_pane(shell)
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        for n in range(5):
            done = await call("run_shell_command", {"pane_id": pane.pane_id,
                                                    "command": f"echo run{n}"})
            assert (done["outcome"], done["output"], done.get("exit_status")) == (
                "completed", [f"run{n}"], 0), (n, done)
        pane.server.cmd("send-keys", "-t", pane.pane_id, "-l", "read answer")
        pane.server.cmd("send-keys", "-t", pane.pane_id, "Enter")
        await call("wait_for_text", {"pane_id": pane.pane_id, "patterns": ["read answer"],
                                     "timeout": 10})
        refused = None
        for _ in range(50):  # the shell reaches its read a moment after the echo shows
            result = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": "echo ran"})
            if result.is_error:
                refused = dict(result.meta or {})
                break
        assert refused is not None and refused["reason"] == "not_at_prompt", refused


async def test_posh_is_refused_with_its_reason_and_the_way_out_works(stdio_client, rc_pane):
    """posh reads its prompt like a ``read``: refused as unsupported, nothing typed; the
    note's send_keys and wait_for_text run the command there."""
    pane = rc_pane("posh")
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        result = await client.call_tool(
            "run_shell_command", {"pane_id": pane.pane_id, "command": "echo ran"})
        meta = dict(result.meta or {})
        text = result.content[0].text
        assert (meta["reason"], meta["retryable"]) == ("unsupported_shell", False), text
        assert "send_keys" in text and "pending read" in text, text
        assert not any("ran" in row for row in pane.screen())  # nothing was typed
        await call("send_keys", {"pane_id": pane.pane_id, "keys": ["echo way-$((6*7))",
                                                                   "Enter"]})
        shown = await call("wait_for_text", {"pane_id": pane.pane_id,
                                             "patterns": ["way-42"], "timeout": 10})
        assert shown["outcome"] in ("matched", "present_at_entry"), (shown, pane.screen())


async def test_a_persons_program_in_a_young_pane_is_not_a_starting_shell(
    stdio_client, shell_pane
):
    pane = shell_pane("bash")  # seconds old: a shell that may still be starting
    pane.server.cmd("send-keys", "-t", pane.pane_id, "-l", "python3 -q")
    pane.server.cmd("send-keys", "-t", pane.pane_id, "Enter")
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        await call("wait_for_text", {"pane_id": pane.pane_id, "patterns": [">>>"],
                                     "timeout": 10})
        result = await client.call_tool(
            "run_shell_command", {"pane_id": pane.pane_id, "command": "echo ran"})
        meta = dict(result.meta or {})
        assert result.is_error and meta["reason"] == "not_a_shell", result
        assert "C-d" in result.content[0].text, result.content[0].text


async def test_a_job_named_like_the_shell_is_named_not_read(stdio_client, shell_pane):
    """What a killed muxport's run leaves: a subshell of the pane's shell in the foreground."""
    pane = shell_pane("bash")
    pane.server.cmd("send-keys", "-t", pane.pane_id, "-l", "( sleep 30; true )")
    pane.server.cmd("send-keys", "-t", pane.pane_id, "Enter")
    async with stdio_client(toolsets=TOOLSETS) as client:
        result = None
        for _ in range(50):  # until the subshell has the terminal (tmux still says bash)
            result = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": "echo ran"})
            if result.is_error:
                break
        assert result is not None and result.is_error, result
        meta = dict(result.meta or {})
        assert (meta["reason"], meta["retryable"], meta["command"]) == (
            "not_at_prompt", True, "sleep"), result
        assert "pending read" not in result.content[0].text


async def test_a_program_named_tmux_in_an_old_pane_is_refused_at_once(
    mcp_client, shell_pane, monkeypatch
):
    """Only a pane just made (or a far one, whose age is unknown) may show tmux's name
    because tmux has forked its process and not yet exec'd the shell: a tmux client a
    person runs in an older pane is refused as not a shell without that wait."""
    from muxport_execute.pane import ready

    pane = shell_pane("bash")
    pane.server.cmd("send-keys", "-t", pane.pane_id, "-l", "exec -a tmux sleep 300")
    pane.server.cmd("send-keys", "-t", pane.pane_id, "Enter")
    await eventually(lambda: pane.server.cmd("display", "-p", "-t", pane.pane_id,
                                             "#{pane_current_command}").strip(),
                     lambda name: name == "tmux", what="the pane to show tmux")
    monkeypatch.setattr(ready, "STARTING_AGE", 0.0)  # every pane is old
    monkeypatch.setattr(ready, "BLANK_BOUND", 60.0)  # a wait for it would outlast the bound
    async with mcp_client(toolsets=TOOLSETS) as (client, _app):
        with anyio.fail_after(20):
            result = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": "echo ran"})
    meta = dict(result.meta or {})
    assert result.is_error and meta["reason"] == "not_a_shell", result

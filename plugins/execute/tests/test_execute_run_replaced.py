"""A run whose process changes under it never holds its pane for good (docs/run-outcomes.md,
"How a run ends"): a command that execs an interactive shell, the pane respawned, the
run's job sent to the background; one that execs another program is that program's run
until it ends (issue 30)."""

from __future__ import annotations

import pytest
from execute_kit import call, run
from muxport.testing import eventually

pytestmark = pytest.mark.timeout(90)


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash"])
async def test_a_run_that_execs_a_shell_ends_and_frees_its_pane(
    stdio_client, shell_pane, tmux_server, shell
):
    p = shell_pane(shell).pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        replaced = await run(client, p, "echo before; sleep 1; exec bash --norc", timeout=15)
        assert (replaced["outcome"], replaced["reason"]) == ("lost", "shell_took_over"), replaced
        assert replaced["output"][:1] == ["before"], replaced
        assert "run_id" not in replaced and "exit" in replaced["note"], replaced
        after = await run(client, p, "echo after", timeout=15)
        assert (after["outcome"], after["output"], after["exit_status"]) == (
            "completed", ["after"], 0), after
        # leaving the shell the run started ends the old frame; the pane's shell is back
        tmux_server.cmd("send-keys", "-t", p, "exit", "Enter")
        await eventually(lambda: tmux_server.cmd(
            "display", "-p", "-t", p, "#{pane_current_command}").strip() == shell)
        back = await run(client, p, "echo back", timeout=15)
        assert back["output"] == ["back"], back


async def test_a_respawned_pane_frees_it(stdio_client, shell_pane, tmux_server):
    p = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        first = await run(client, p, "echo started; sleep 30", timeout=0)
        await eventually(lambda: "started" in tmux_server.cmd("capture-pane", "-p", "-t", p))
        tmux_server.cmd("respawn-pane", "-k", "-t", p, "bash --norc")
        gone = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert gone["outcome"] in ("pane_gone", "lost"), gone
        assert "run_id" not in gone, gone
        after = await run(client, p, "echo after", timeout=15)
        assert after["output"] == ["after"], after


async def test_a_run_sent_to_the_background_frees_its_pane(
    stdio_client, shell_pane, tmux_server
):
    p = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        first = await run(client, p, "echo started; sleep 6", timeout=0)
        await eventually(lambda: "started" in tmux_server.cmd("capture-pane", "-p", "-t", p))
        tmux_server.cmd("send-keys", "-t", p, "C-z")
        stopped = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert stopped["outcome"] == "stopped", stopped
        tmux_server.cmd("send-keys", "-t", p, "bg", "Enter")
        behind = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 2})
        assert behind["outcome"] == "timed_out" and "background" in behind["note"], behind
        after = await run(client, p, "echo after", timeout=15)
        assert after["output"] == ["after"], after
        done = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 15})
        assert (done["outcome"], done["exit_status"]) == ("completed", 0), done


async def test_a_run_that_execs_another_program_holds_the_pane_until_it_ends(
    stdio_client, shell_pane, tmux_server
):
    # the run is that program now: it waits, C-c ends it, and the status is its own
    p = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        first = await run(client, p, "echo a; exec cat", timeout=3)
        assert first["outcome"] == "waiting_for_input", first
        busy = await client.call_tool("run_shell_command", {"pane_id": p, "command": "true"})
        assert busy.is_error and busy.structured_content is None, busy
        tmux_server.cmd("send-keys", "-t", p, "C-c")
        done = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert (done["outcome"], done["exit_status"], done["output"][:1]) == (
            "completed", 130, ["a"]), done  # then the terminal's echo of C-c: ^C

"""Notes name the way out that works for the foreground program (docs/run-outcomes.md,
"What to do next"): C-d for a REPL, q for a pager, C-c otherwise."""

from __future__ import annotations

import pytest
from muxport.testing import CheckedCalls
from muxport_execute.notes import stop_recovery

pytestmark = pytest.mark.timeout(60)


async def test_waiting_for_input_names_the_programs_way_out(stdio_client, shell_pane):
    pane = shell_pane("bash")
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        call = CheckedCalls(client)
        got = await call("run_shell_command", {
            "pane_id": pane.pane_id, "command": "python3 -c \"input('name? ')\"", "timeout": 5})
        assert got["outcome"] == "waiting_for_input", got
        assert "C-d" in got["note"] and "C-c stops it" not in got["note"], got["note"]
        done = await call("paste_text", {"pane_id": pane.pane_id, "text": "x", "enter": True})
        assert done is not None
        end = await call("wait_for_run", {"run_id": got["run_id"], "timeout": 10})
        assert (end["outcome"], end.get("exit_status")) == ("completed", 0), end


def test_a_shell_that_is_not_posix_is_never_told_c_d() -> None:
    note = stop_recovery("xonsh", "%1")
    assert "send_keys" in note and "never C-d" in note
    assert "C-d to" not in stop_recovery("less", "%1") and "q" in stop_recovery("less", "%1")


CURSOR_MOVES = ["printf 'a\\nb\\n\\033[H'; echo x", "echo a; tput cup 0 0; echo x"]


@pytest.mark.parametrize("shell", ["bash", "zsh"])
async def test_a_moved_cursor_is_named_so_in_every_shell(stdio_client, shell_pane, shell):
    """zsh clears below the cursor at its prompt, so no rows are left below it to see:
    the start marker is gone although the history is not full."""
    p = shell_pane(shell).pane_id
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        call = CheckedCalls(client)
        for command in CURSOR_MOVES:
            got = await call("run_shell_command", {"pane_id": p, "command": command})
            assert (got["outcome"], got["lines_missed"]) == ("completed", True), got
            assert "moved the cursor" in got["note"] and "outgrew" not in got["note"], got
            assert got["truncated"] is False, got  # rewritten on the screen, none lost off it


@pytest.mark.parametrize("shell", ["bash", "zsh"])
async def test_output_that_outgrew_the_history_is_named_so(
    stdio_client, shell_pane, tmux_server, shell
):
    tmux_server.cmd("set-option", "-g", "history-limit", "50")  # for panes made after it
    p = shell_pane(shell).pane_id
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        call = CheckedCalls(client)
        got = await call("run_shell_command", {"pane_id": p, "command": "seq 500"})
        assert (got["exit_status"], got["output"][-1]) == (0, "500"), got
        assert "outgrew" in got["note"], got
        # lines were lost off the top: truncated says so, not only lines_missed (issue 30)
        assert got["lines_missed"] is True and got["truncated"] is True, got


async def test_lines_lost_off_the_top_are_truncated(stdio_client, shell_pane, tmux_server):
    # issue 30, as written: seq 1 6000 in a pane whose history-limit is 2000
    tmux_server.cmd("set-option", "-g", "history-limit", "2000")
    p = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        got = await CheckedCalls(client)("run_shell_command", {
            "pane_id": p, "command": "seq 1 6000", "max_lines": 5000})
    assert (got["outcome"], got["exit_status"]) == ("completed", 0), got
    # what the history still holds, all of it (no budget cut): about 2000 lines
    assert got["output"][-1] == "6000" and 1000 < len(got["output"]) < 2100, len(got["output"])
    assert got["lines_dropped"] == 0
    assert got["lines_missed"] is True and got["truncated"] is True, got
    assert "outgrew" in got["note"], got

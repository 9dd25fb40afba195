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

"""Keys typed into a pane while a run runs there (issue 30): the terminal echoes them into
the run's output and the shell reads them as its next line once the run ends. The answer
says so, while the run runs and once it ended (docs/run-outcomes.md, "Keys typed during a
run"); a run that reads what is typed to it has no such note."""

from __future__ import annotations

import pytest
from execute_kit import call, run
from muxport.testing import eventually

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash"])
async def test_a_line_typed_during_a_run_is_named(stdio_client, shell_pane, tmux_server,
                                                    tmp_path, shell):
    pane = shell_pane(shell)
    p, flag = pane.pane_id, tmp_path / "go"
    command = f"echo before; while [ ! -e {flag} ]; do sleep 0.05; done; echo after"
    async with stdio_client(toolsets=["execute"]) as client:
        first = await run(client, p, command, timeout=0)
        assert first["outcome"] == "timed_out" and first["note"].count("typed into") == 0
        await eventually(lambda: tmux_server.lines("capture-pane", "-p", "-t", p),
                         lambda rows: "before" in rows, what="the run's first line")
        tmux_server.cmd("send-keys", "-t", p, "echo PERSON-X", "Enter")

        # The monitor looks at least every 0.5 s: wait_for_run's own wait, bounded.
        for _ in range(20):
            seen = await call(client, "wait_for_run", {"run_id": first["run_id"],
                                                       "timeout": 0.5})
            if f"keys were typed into {p}" in (seen["note"] or ""):
                break
        assert seen["outcome"] == "timed_out" and "typed into" in seen["note"], seen
        flag.touch()
        done = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 20})
        assert (done["outcome"], done["exit_status"]) == ("completed", 0), done
        assert done["output"][0] == "before" and done["output"][-1] == "after", done
        assert "echo PERSON-X" in done["output"], done  # the terminal's echo, named by the note
        assert f"keys were typed into {p}" in done["note"], done
        # the shell then ran the person's line: the pane is usable, and a run that reads
        # what it is sent has no such note
        await eventually(lambda: tmux_server.lines("capture-pane", "-p", "-t", p),
                         lambda rows: any(row.endswith(" PERSON-X") or row == "PERSON-X"
                                          for row in rows), what="the person's line ran")
        plain = await run(client, p, "echo plain")
        assert plain["output"] == ["plain"] and "typed into" not in (plain.get("note") or "")


async def test_a_line_typed_ahead_that_the_run_reads_is_not_named(stdio_client, shell_pane,
                                                                  tmux_server, tmp_path):
    """Typed before the run reads it, then read by the run: the note goes once a look sees
    the terminal's queue drained while the run still runs (the shell will not run it)."""
    p, go, end = shell_pane("bash").pane_id, tmp_path / "go", tmp_path / "end"
    command = (f"echo before; while [ ! -e {go} ]; do sleep 0.05; done; read x; echo got-$x; "
               f"while [ ! -e {end} ]; do sleep 0.05; done")
    async with stdio_client(toolsets=["execute"]) as client:
        first = await run(client, p, command, timeout=0)
        await eventually(lambda: tmux_server.lines("capture-pane", "-p", "-t", p),
                         lambda rows: "before" in rows, what="the run's first line")
        tmux_server.cmd("send-keys", "-t", p, "answer", "Enter")
        for _ in range(20):  # queued, unread: named (the monitor looks every 0.5 s at most)
            seen = await call(client, "wait_for_run", {"run_id": first["run_id"],
                                                       "timeout": 0.5})
            if "typed into" in (seen["note"] or ""):
                break
        assert "typed into" in seen["note"], seen
        go.touch()
        await eventually(lambda: tmux_server.lines("capture-pane", "-p", "-t", p),
                         lambda rows: "got-answer" in rows, what="the run read the line")
        for _ in range(20):  # read by the run: no longer named
            seen = await call(client, "wait_for_run", {"run_id": first["run_id"],
                                                       "timeout": 0.5})
            if "typed into" not in (seen["note"] or ""):
                break
        assert "typed into" not in (seen["note"] or ""), seen
        end.touch()
        done = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 20})
    assert (done["outcome"], done["exit_status"]) == ("completed", 0), done
    assert "got-answer" in done["output"] and "typed into" not in done.get("note", ""), done

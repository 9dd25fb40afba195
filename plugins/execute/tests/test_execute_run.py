"""run_shell_command and wait_for_run over real stdio (docs/runs-and-waits.md)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from execute_kit import POSIX_QUOTING, QUOTING_OUT, call, run
from muxport.testing import MCPError, eventually, tool_schema_errors
from muxport_execute.host import owners


@pytest.mark.parametrize(
    ("shell", "width"), [("bash", 80), ("zsh", 80), ("dash", 80), ("ksh", 80), ("zsh", 40)]
)
async def test_runs_return_only_output_and_status(
    stdio_client, shell_pane, rc_pane, tmux_server, shell, width
):
    # ksh with a user's profile (execute_kit.KSH_PROFILE: aliases, a KEYBD trap, cd=_cd)
    pane = rc_pane(shell, width=width) if shell == "ksh" else shell_pane(shell, width=width)
    p = pane.pane_id
    where = tmux_server.cmd("display", "-p", "-t", p, "#{pane_current_path}").strip()
    async with stdio_client(toolsets=["execute"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        first = await run(client, p, "printf 'a\\nb\\n'")
        assert tool_schema_errors(tools["run_shell_command"].output_schema, first) == []
        assert (first["output"], first["exit_status"], first["outcome"]) == (
            ["a", "b"],
            0,
            "completed",
        )
        assert first["framed"] is True and first["lines_missed"] is False
        assert "run_id" not in first and first["max_lines"] == 200  # nothing left to collect
        assert (await run(client, p, "false"))["exit_status"] == 1
        three = await run(client, p, "echo bye; exit 3")
        assert (three["output"], three["exit_status"]) == (["bye"], 3)
        moved = await run(client, p, "cd /tmp && export MX_LEAK=1 && pwd")
        assert moved["output"] == ["/tmp"]
        assert (await run(client, p, 'echo "${MX_LEAK-unset}"'))["output"] == ["unset"]
        assert (await run(client, p, POSIX_QUOTING))["output"] == QUOTING_OUT
        wide = await run(client, p, "printf '%0100d\\n' 7; printf 'no newline'")
        assert wide["output"] == ["0" * 99 + "7", "no newline"]
        one, two = await run(client, p, "echo first"), await run(client, p, "echo second")
        assert (one["output"], two["output"]) == (["first"], ["second"])
        later = await run(client, p, "sleep 0.3; printf 'a\\nb\\n'", timeout=0)
        assert later["outcome"] == "timed_out" and later["run_id"].startswith("run-")
        again = await call(client, "wait_for_run", {"run_id": later["run_id"], "max_lines": 1})
        assert (again["output"], again["exit_status"], again["truncated"]) == (["b"], 0, True)
    shown = tmux_server.cmd(
        "display", "-p", "-t", p, "#{pane_current_command}|#{pane_current_path}|#{pane_dead}"
    ).strip()
    assert shown == f"{shell}|{where}|0"


async def test_big_output_keeps_status_and_newest_lines(stdio_client, shell_pane):
    p = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        start = time.perf_counter()
        big = await run(client, p, "seq 1 100000")
        elapsed = time.perf_counter() - start
        print(f"seq 1 100000: {elapsed:.3f}s")  # the target is under 1 s; measured, not asserted
        assert (big["outcome"], big["exit_status"]) == ("completed", 0)
        assert big["framed"] is False and big["lines_missed"] is True
        assert big["output"] == [str(n) for n in range(99801, 100001)]
        assert big["truncated"] is True and big["lines_dropped"] > 0
        assert "history" in big["note"]
        after = await run(client, p, "echo after")
        assert after["output"] == ["after"] and after["framed"] is True


async def test_timed_out_run_is_collected_by_wait_for_run(stdio_client, shell_pane, tmux_server):
    p = shell_pane("zsh").pane_id
    q = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        # Ends once the test signals it, from the first progress beat of the wait below.
        release = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for test-release"
        slow = await run(client, p, f"echo begun; {release}; echo ended", timeout=1)
        assert slow["outcome"] == "timed_out" and "exit_status" not in slow
        assert slow["output"] == ["begun"] and "wait_for_run" in slow["note"]
        busy = await client.call_tool("run_shell_command", {"pane_id": p, "command": "true"})
        assert busy.is_error and busy.meta["error_code"] == "refused"
        assert slow["run_id"] in busy.content[0].text and "wait_for_run" in busy.content[0].text
        # A cancelled wait (the client gives up) ends at once; the run is still watched.
        started = time.perf_counter()
        with pytest.raises(MCPError):
            await client.call_tool(
                "wait_for_run", {"run_id": slow["run_id"]}, read_timeout_seconds=0.5
            )
        assert time.perf_counter() - started < 3.0
        beats: list[str | None] = []

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            beats.append(message)
            if len(beats) == 1:
                tmux_server.cmd("wait-for", "-S", "test-release")

        result = await client.call_tool(
            "wait_for_run", {"run_id": slow["run_id"], "timeout": 20}, progress_callback=progress
        )
        done = result.structured_content
        assert beats and slow["run_id"] in str(beats[0])
        assert (done["outcome"], done["exit_status"], done["output"]) == (
            "completed",
            0,
            ["begun", "ended"],
        )
        # Finished while nobody waited: the command signals the test before the frame ends.
        unattended = await run(
            client,
            q,
            f"echo late; {tmux_server.binary} -S {tmux_server.socket_path} "
            "wait-for -S test-late; exit 4",
            timeout=0,
        )
        assert unattended["outcome"] == "timed_out"
        tmux_server.wait_for("test-late")
        late = await call(client, "wait_for_run", {"run_id": unattended["run_id"], "timeout": 20})
        assert (late["outcome"], late["exit_status"], late["output"]) == ("completed", 4, ["late"])
        gone = await client.call_tool("wait_for_run", {"run_id": "run-0123456789abcdef"})
        assert gone.is_error and gone.meta["error_code"] == "not_found"
        assert "unknown or was evicted" in gone.content[0].text


async def test_refusals_a_killed_pane_and_a_dead_server(stdio_client, shell_pane, tmux_server):
    p = shell_pane("dash").pane_id
    q = shell_pane("bash").pane_id
    # Two argv items: tmux execs cat itself, no shell in between (not even for a moment).
    cat = tmux_server.cmd("new-session", "-d", "-P", "-F", "#{pane_id}", "cat", "-").strip()
    async with stdio_client(toolsets=["execute"]) as client:
        refused = await client.call_tool("run_shell_command", {"pane_id": cat, "command": "true"})
        assert refused.is_error and refused.meta["error_code"] == "refused"
        assert "send_keys" in refused.content[0].text
        long = await run(client, p, "sleep 30", timeout=0)
        tmux_server.cmd("kill-pane", "-t", p)
        ended = await call(client, "wait_for_run", {"run_id": long["run_id"], "timeout": 20})
        assert ended["outcome"] == "pane_gone"
        assert tmux_server.cmd("capture-pane", "-p", "-t", cat).strip() == ""
        last = await run(client, q, "sleep 30", timeout=0)
        tmux_server.cmd("kill-server")
        died = await call(client, "wait_for_run", {"run_id": last["run_id"], "timeout": 20})
        assert died["outcome"] == "server_gone"
        assert died.get("exit_status") in (None, 129)  # 129: the frame saw the hang-up


async def test_bash_keeps_the_line_out_of_history(stdio_client, shell_pane):
    p = shell_pane("bash").pane_id
    count = "history | grep -c mxr- || true"  # bash may have loaded older lines from HISTFILE
    async with stdio_client(toolsets=["execute"]) as client:
        before = await run(client, p, count)
        await run(client, p, "true")
        after = await run(client, p, count)
        await run(client, p, "true", suppress_history=False)
        kept = await run(client, p, count)
    assert after["output"] == before["output"]
    assert int(kept["output"][0]) == int(before["output"][0]) + 1


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash", "ksh", "fish"])
async def test_the_command_text_leaves_the_disk_once_the_shell_opened_it(
    stdio_client, shell_pane, rc_pane, fish_pane, tmux_server, shell
):
    """Issue 21: ``cmd`` is removed while the command runs; the shell reads on from what it
    opened (dash, zsh and ksh read a sourced file as they go: the last line is read after)."""
    make = {"fish": lambda: fish_pane(), "ksh": lambda: rc_pane("ksh")}
    pane = make.get(shell, lambda: shell_pane(shell))().pane_id
    private = Path(tempfile.mkdtemp(prefix="mxr-c"))  # the launcher's TMPDIR: its run files
    gate = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for gate-{shell}"
    try:
        async with stdio_client(toolsets=["execute"], env={"TMPDIR": str(private)}) as client:
            began = await run(client, pane, f"echo one; {gate}\necho two", timeout=0)
            assert began["outcome"] == "timed_out"
            [name] = os.listdir(private)
            files = private / name
            owner = owners.owner_of(name)
            assert owner is not None and not owners.is_dead(owner)  # named after the launcher
            await eventually(lambda: not (files / "cmd").exists(), what="cmd removed",
                             within=5)
            assert (files / "read").exists() and (files / "frame").exists()
            tmux_server.cmd("wait-for", "-S", f"gate-{shell}")
            ended = await call(client, "wait_for_run", {"run_id": began["run_id"], "timeout": 20})
            assert (ended["outcome"], ended["exit_status"]) == ("completed", 0)
            assert ended["output"] == ["one", "two"]
            assert os.listdir(private) == []  # the run's directory goes at its end
    finally:
        shutil.rmtree(private, ignore_errors=True)

"""tmux failing under runs in flight (issue 10 acceptance): the runs end with clear errors,
the server keeps answering, and runs work again once tmux does."""

from __future__ import annotations

import shutil
from pathlib import Path

from muxport.testing import CheckedCalls


def wrapper_text(real: str, flag: Path) -> str:
    return (f'#!/bin/sh\nif [ -e "{flag}" ]; then echo "tmux wrapper: failing" >&2; exit 1; fi\n'
            f'exec "{real}" "$@"\n')


async def test_runs_in_flight_end_with_errors_when_tmux_fails(
    stdio_client, shell_pane, tmux_server, tmp_path
):
    real = shutil.which("tmux") or "tmux"
    flag, wrapper = tmp_path / "fail", tmp_path / "tmux"
    wrapper.write_text(wrapper_text(real, flag))
    wrapper.chmod(0o755)
    panes = [shell_pane(shell).pane_id for shell in ("bash", "zsh", "dash")]
    # the forked client: over the socket, commands need no binary and the fault is not met
    env = {"LIBTMUX_TMUX_BIN": str(wrapper), "MUXPORT_TRANSPORT": "fork"}
    async with stdio_client(toolsets=["execute", "inspect", "manage"], env=env) as client:
        call = CheckedCalls(client)
        runs = []
        for n, pane in enumerate(panes):
            command = (f"echo begun-{n}; {real} -S {tmux_server.socket_path} wait-for fault-{n}; "
                       "echo finished")
            runs.append(await call("run_shell_command",
                                   {"pane_id": pane, "command": command, "timeout": 0}))
            seen = await call("wait_for_text", {"pane_id": pane, "patterns": [f"begun-{n}"],
                                                "timeout": 10})
            assert seen["outcome"] in ("matched", "present_at_entry")
        flag.touch()  # tmux starts failing
        for run in runs:
            ended = await call("wait_for_run", {"run_id": run["run_id"], "timeout": 10})
            assert ended["outcome"] == "error" and ended["reason"] == "tmux_error", ended
            assert "tmux wrapper: failing" in ended["note"] and "capture_pane" in ended["note"]
        listed = await client.call_tool("list_sessions", {})
        assert listed.is_error and listed.meta["error_code"] == "tmux_error"
        wrapper.unlink()  # tmux is gone altogether
        flag.unlink()
        missing = await client.call_tool("run_shell_command",
                                         {"pane_id": panes[0], "command": "true"})
        assert missing.is_error and "tmux" in missing.content[0].text
        assert (await client.call_tool("list_sessions", {})).is_error
        wrapper.write_text(wrapper_text(real, flag))  # tmux works again
        wrapper.chmod(0o755)
        assert len((await call("list_sessions", {}))["sessions"]) == 3
        for n, pane in enumerate(panes):
            tmux_server.cmd("wait-for", "-S", f"fault-{n}")
            prompt = await call("wait_for_text", {"pane_id": pane, "patterns": [r"^\$ ?$"],
                                                  "regex": True, "timeout": 10})
            assert prompt["outcome"] in ("matched", "present_at_entry")
            again = await call("run_shell_command", {"pane_id": pane, "command": "echo again"})
            assert (again["outcome"], again["output"], again["exit_status"]) == (
                "completed", ["again"], 0)

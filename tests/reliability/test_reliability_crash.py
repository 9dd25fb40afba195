"""kill -9 of muxport mid-run (issue 21): the next muxport's startup removes what the dead
one left (its run's directory, its pipe-pane, its waiter), and never what a live one owns
(docs/reliability.md, "Cleanup after a crash")."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from muxport.testing import TmuxServer, eventually
from muxport.testing.clients import launcher
from muxport_execute.host import owners
from reliability_kit import STATS, RawLauncher, processes_using

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def private() -> Iterator[Path]:
    """The launchers' TMPDIR: their runs' directories and the cleanup's record go here."""
    path = Path(tempfile.mkdtemp(prefix="mxr-k"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def launch(tmux_server: TmuxServer, private: Path, toolsets: list[str], **env: str) -> RawLauncher:
    raw = RawLauncher({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                       "LIBTMUX_TOOLSETS": ",".join(toolsets), "TMPDIR": str(private), **env})
    raw.initialize()  # answered once the startup (and its cleanup) is over
    return raw


def answer(raw: RawLauncher, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = raw.read(raw.call(tool, arguments), timeout=30)["result"]
    assert not result.get("isError"), result
    found: dict[str, Any] = result["structuredContent"]
    return found


def pipe(tmux_server: TmuxServer, pane: str) -> str:
    return tmux_server.cmd("display-message", "-p", "-t", pane, "#{pane_pipe}").strip()


def copies(server_pid: int) -> list[str]:
    """The command lines of the tmux server's children that copy a pane's output (dd)."""
    found = []
    for task in os.listdir(f"/proc/{server_pid}/task"):
        for child in Path(f"/proc/{server_pid}/task/{task}/children").read_text().split():
            try:
                words = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if words[0].endswith(b"dd"):
                found.append(b" ".join(words).decode())
    return found


def ended_at_prompt(tmux_server: TmuxServer, pane: str) -> bool:
    lines = tmux_server.cmd("capture-pane", "-p", "-t", pane).rstrip().splitlines()
    ended = any(re.search(r"[0-9a-f]{32}:e:130$", line) for line in lines)
    return ended and bool(lines) and lines[-1].rstrip() == "$"


def doctor(tmux_server: TmuxServer, private: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    env.update(LIBTMUX_SOCKET_PATH=tmux_server.socket_path, TMPDIR=str(private))
    done = subprocess.run([launcher(), "doctor"], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    [line] = [x for x in done.stdout.splitlines() if x.startswith("execute crash_cleanup: ")]
    found: dict[str, Any] = json.loads(line.split(": ", 1)[1])
    return found


@pytest.mark.parametrize("transport", ["socket", "fork"])
async def test_kill_9_mid_run_is_cleaned_up_by_the_next_start(
    tmux_server, shell_pane, sandbox, all_toolsets, private, transport
):
    pane = shell_pane("bash").pane_id
    server_pid = int(tmux_server.cmd("display-message", "-p", "#{pid}"))
    env = {"MUXPORT_TRANSPORT": "fork"} if transport == "fork" else {}
    first = launch(tmux_server, private, all_toolsets, **env)
    try:
        began = answer(first, "run_shell_command",
                       {"pane_id": pane, "command": "sleep 30", "timeout": 0})
        assert began["outcome"] == "timed_out"
        [name] = os.listdir(private)
        left = private / name
        owner = owners.owner_of(name)
        assert owner is not None and owner.pid == first.process.pid
        channel = (left / "channel").read_text().split()[1]
        await eventually(lambda: not (left / "cmd").exists(), what="cmd removed", within=5)
    finally:
        first.kill()  # SIGKILL, then reaped
    STATS.faults += 1
    # What the crash leaves: the directory, the pipe (and its dd), the waiter.
    assert left.exists() and pipe(tmux_server, pane) == "1"
    assert len(copies(server_pid)) == 1 and name in copies(server_pid)[0]
    if transport == "fork":  # the forked waiter outlives its muxport
        assert any(channel in line for line in processes_using(tmux_server.socket_path))
    assert doctor(tmux_server, private)["left_now"] == {"directories": 1, "unfinished_runs": 1}

    second = launch(tmux_server, private, all_toolsets, **env)
    try:
        # Within its startup: all of it gone.
        assert not left.exists()
        assert pipe(tmux_server, pane) == "0"
        await eventually(lambda: copies(server_pid) == [], what="the dead run's dd ended")
        await eventually(
            lambda: not any(channel in line for line in processes_using(tmux_server.socket_path)),
            what="no waiter left",
        )
        # No ghost waiter either: a signal now is kept for the next waiter (a waiter killed
        # with its muxport would have swallowed it, and this wait would block).
        tmux_server.cmd("wait-for", "-S", channel)
        tmux_server.cmd("wait-for", channel, timeout=5)
        facts = doctor(tmux_server, private)
        assert facts["left_now"] == {"directories": 0, "unfinished_runs": 0}
        last = facts["last_cleanup"]
        assert (last["directories"], last["pipes"], last["waiters"]) == (1, 1, 1)
        assert last["pid"] == second.process.pid
        # The dead run's command ends (C-c); the next run in that pane sees the raw bytes.
        tmux_server.cmd("send-keys", "-t", pane, "C-c")
        await eventually(lambda: ended_at_prompt(tmux_server, pane),
                         what="the dead run's end marker and a prompt")
        printf = {"pane_id": pane, "command": "printf 'a\\377b\\n'"}
        got = answer(second, "run_shell_command", printf)
        assert (got["outcome"], got["exit_status"], got["invalid_utf8"]) == ("completed", 0, 1)
        assert got["output"] == ["a\ufffdb"]
    finally:
        second.kill()


async def test_a_live_muxports_run_is_never_cleaned_up(
    tmux_server, shell_pane, sandbox, all_toolsets, private
):
    """Two muxports serving one tmux server: the second's startup leaves the first's run."""
    pane = shell_pane("bash").pane_id
    gate = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for gate"
    first = launch(tmux_server, private, all_toolsets)
    try:
        began = answer(first, "run_shell_command",
                       {"pane_id": pane, "command": f"{gate}; printf 'a\\377b\\n'", "timeout": 0})
        assert began["outcome"] == "timed_out"
        [name] = os.listdir(private)
        second = launch(tmux_server, private, all_toolsets)
        try:
            assert os.listdir(private) == [name] and pipe(tmux_server, pane) == "1"
            assert doctor(tmux_server, private)["left_now"]["directories"] == 0
            tmux_server.cmd("wait-for", "-S", "gate")
            ended = answer(first, "wait_for_run", {"run_id": began["run_id"], "timeout": 20})
            assert (ended["outcome"], ended["exit_status"]) == ("completed", 0)
            assert ended["invalid_utf8"] == 1  # its copy was never closed under it
        finally:
            second.kill()
    finally:
        first.kill()

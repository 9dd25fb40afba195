"""What the system refuses is named, never an internal error: the tmux binary removed under
the server, file descriptors exhausted, a full disk, a tmux that fails or hangs at startup,
an unwritable TMUX_TMPDIR; and tool errors inside task groups keep their own code."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from muxport.testing.clients import launcher
from reliability_kit import STATS, RawLauncher, error_code

pytestmark = pytest.mark.timeout(90)


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    env.update(extra)
    return env


def start_fails(env: dict[str, str], timeout: float = 20) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([launcher()], env=clean_env(env), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    STATS.faults += 1
    return done


@contextlib.contextmanager
def small_tmpfs(tmp_path: Path, options: str) -> Iterator[Path]:
    """A tiny tmpfs (needs root and mount rights; skipped where the machine has neither)."""
    import tempfile

    where = Path(tempfile.mkdtemp(prefix="mxf-"))  # short: run files need a short TMPDIR
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        where.rmdir()


async def test_tmux_binary_removed_under_the_server(stdio_client, tmux_server, shell_pane,
                                                    sandbox, tmp_path):
    pane = shell_pane("bash")
    copy = tmp_path / "tmux"
    shutil.copy2(tmux_server.binary, copy)
    async with stdio_client(toolsets=["inspect"], env={"LIBTMUX_TMUX_BIN": str(copy)}) as client:
        assert not (await client.call_tool("list_sessions", {})).is_error
        copy.unlink()
        STATS.faults += 1
        # Over the socket, commands and control clients (wait_for_text's feed) need no
        # binary and keep working; with the fork forced, everything says so.
        forked = os.environ.get("MUXPORT_TRANSPORT", "") == "fork"
        for tool, args in (("list_sessions", {}), ("capture_pane", {"pane_id": pane.pane_id}),
                           ("wait_for_text", {"pane_id": pane.pane_id, "timeout": 1})):
            result = await client.call_tool(tool, args)
            if forked:
                assert error_code(result) == "tmux_missing", (tool, result)
                assert "reinstall tmux" in result.content[0].text
            else:
                assert not result.is_error, (tool, result)
        shutil.copy2(tmux_server.binary, copy)
        assert not (await client.call_tool("list_sessions", {})).is_error


async def test_out_of_file_descriptors_is_resource_exhausted(tmux_server, shell_pane, sandbox):
    import os

    pane = shell_pane("bash")
    # forked clients (control mode, the fallback) are what a process start's EMFILE hits;
    # a socket client needs one descriptor, and gets the same fault through the fallback
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "inspect",
           "MUXPORT_TRANSPORT": "fork"}
    probe = RawLauncher(env)
    try:  # the descriptors an idle launcher holds, here
        probe.initialize()
        probe.read(probe.call("list_sessions", {}))
        idle = len(os.listdir(f"/proc/{probe.process.pid}/fd"))
    finally:
        probe.kill()
    # room for one tmux start (8 descriptors) and a few more, not for many at once
    raw = RawLauncher(env, max_files=idle + 10)
    try:
        raw.initialize()
        ids = [raw.call("capture_pane", {"pane_id": pane.pane_id}) for _ in range(60)]
        STATS.faults += 1
        codes = {error_code_of(answer) for answer in read_all(raw, ids)}
        assert "resource_exhausted" in codes, codes
        assert codes <= {None, "resource_exhausted"}, codes
        ok = raw.read(raw.call("list_sessions", {}), timeout=10)
        assert not ok["result"].get("isError"), ok
    finally:
        raw.kill()


def error_code_of(answer: dict[str, Any]) -> str | None:
    result = answer["result"]
    return (result.get("_meta") or {}).get("error_code") if result.get("isError") else None



def read_all(raw: RawLauncher, ids: list[int], timeout: float = 60) -> list[dict[str, Any]]:
    """The answers to ``ids``, in any order (``RawLauncher.read`` skips other answers)."""
    return raw.lines.answers(ids, timeout)


async def test_full_disk_under_a_run_is_no_space(stdio_client, shell_pane, sandbox, tmp_path):
    pane = shell_pane("bash")
    with small_tmpfs(tmp_path, "size=64k") as full:
        async with stdio_client(toolsets=["execute"], env={"TMPDIR": str(full)}) as client:
            # the first run makes Python settle on TMPDIR (a full one would be skipped)
            first = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": "echo first"})
            assert first.structured_content["output"] == ["first"], first
            with contextlib.suppress(OSError):
                (full / "filler").write_bytes(b"x" * (1 << 20))
            result = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": "echo " + "y" * 9000})
            STATS.faults += 1
            assert error_code(result) == "no_space", result
            assert result.meta["delivery"] == "not_sent", result.meta  # nothing was typed
            assert "free disk space" in result.content[0].text
            (full / "filler").unlink()
            ran = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": "echo ok"})
            assert ran.structured_content["output"] == ["ok"], ran


def test_failing_or_hanging_tmux_stops_startup(tmp_path):
    failing = tmp_path / "failing-tmux"
    failing.write_text("#!/bin/sh\necho 'broken' >&2\nexit 1\n")
    failing.chmod(0o755)
    done = start_fails({"LIBTMUX_TMUX_BIN": str(failing)})
    assert "muxport needs tmux 3.2a" in done.stderr
    hanging = tmp_path / "hanging-tmux"
    hanging.write_text("#!/bin/sh\nexec sleep 60\n")
    hanging.chmod(0o755)
    started = time.monotonic()
    done = start_fails({"LIBTMUX_TMUX_BIN": str(hanging)})
    assert "did not answer within" in done.stderr
    assert time.monotonic() - started < 30  # the deadline, not sleep's 60 s (a slow start)
    done = start_fails({"LIBTMUX_TMUX_BIN": str(tmp_path / "absent")})
    assert "not found" in done.stderr


def test_unwritable_tmux_tmpdir_stops_startup(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    done = start_fails({"TMUX_TMPDIR": str(a_file)})
    assert "TMUX_TMPDIR" in done.stderr and str(a_file) in done.stderr
    with small_tmpfs(tmp_path, "ro,size=16k") as read_only:
        done = start_fails({"TMUX_TMPDIR": str(read_only)})
        assert "TMUX_TMPDIR" in done.stderr and "writable" in done.stderr


async def test_twenty_waits_under_a_killed_server_are_server_gone(
    stdio_client, tmux_server, shell_pane, sandbox
):
    panes = [shell_pane("bash") for _ in range(4)]
    async with stdio_client(toolsets=["inspect"]) as client:
        answers: list[Any] = []
        async with anyio.create_task_group() as group:

            async def wait(pane_id: str) -> None:
                answers.append(await client.call_tool(
                    "wait_for_text", {"pane_id": pane_id, "patterns": ["never"], "timeout": 30}))

            for i in range(20):
                group.start_soon(wait, panes[i % 4].pane_id)
            await anyio.sleep(1.0)  # let them arm: the outcome is the same if some have not
            tmux_server.cmd("kill-server")
            STATS.faults += 1
        outcomes = {(a.structured_content or {}).get("outcome") or error_code(a) for a in answers}
        assert outcomes == {"server_gone"}, outcomes

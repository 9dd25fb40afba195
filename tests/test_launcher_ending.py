"""How the launcher starts and ends (README, "When the client goes away"): its startup line
goes to stderr only for a terminal (or --verbose), to the client as a log message
otherwise; SIGINT and SIGTERM end it within 1 s although stdin stays open, at any moment
from its first answer on (loading, startup, serving; quiet or loaded machine), with 130 or
143, no traceback and nothing left behind, and a run in flight goes on in its pane; at EOF
every request already read is answered (quick calls completed, waits cut short with what
they saw), then it exits 0. Spoken to over real stdio, as a client (or printf) would."""

from __future__ import annotations

import functools
import json
import os
import pty
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from muxport._internal.shutdown import CUT, GRACE
from muxport.testing import eventually_blocking
from muxport.testing.clients import launcher
from reliability_kit import RawLauncher

from tests.conftest import clean_env, time_exit
from tests.load_kit import busy_cores

pytestmark = pytest.mark.timeout(240)
TRIES = 10
HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "printf", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def printf(env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> tuple[
    int, dict[int, dict[str, Any]], float
]:
    """Write the handshake, tools/list and ``calls`` (ids 3, 4, ...) at once, then EOF, as
    ``printf ... | muxport`` does; the exit status, every answer by id, the seconds taken."""
    frames = [*HANDSHAKE, *(
        {"jsonrpc": "2.0", "id": 3 + i, "method": "tools/call",
         "params": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(calls)
    )]
    data = b"".join(json.dumps(frame).encode() + b"\n" for frame in frames)
    start = time.monotonic()
    done = subprocess.run([launcher()], input=data, capture_output=True, env=clean_env(env),
                          timeout=60, check=False)
    elapsed = time.monotonic() - start
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    return done.returncode, {m["id"]: m for m in messages if "id" in m}, elapsed


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_it_within_a_second_and_the_run_goes_on(
    tmux_server: Any, shell_pane: Any, tmp_path: Path, signum: int
) -> None:
    pane = shell_pane("bash")
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    raw = RawLauncher({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                       "TMPDIR": str(private_tmp)})
    try:
        raw.initialize()
        tmux = f"{tmux_server.binary} -S {tmux_server.socket_path}"
        command = f"{tmux} wait-for -S started; sleep 1; {tmux} wait-for -S finished"
        run = raw.call("run_shell_command", {"pane_id": pane.pane_id, "command": command})
        raw.call("wait_for_channel", {"channel": "never", "timeout": 60})
        tmux_server.wait_for("started")  # the run is in flight, and so is the wait
        code, elapsed = time_exit(raw.process, lambda: raw.process.send_signal(signum))
    finally:
        raw.kill()
    assert code == 128 + signum
    assert elapsed < 1.0, f"exit took {elapsed:.2f} s after {signal.Signals(signum).name}"
    with pytest.raises(EOFError):
        raw.read(run, timeout=5)  # nothing more is answered after a signal
    tmux_server.wait_for("finished")  # the command ran on in its pane
    assert list(private_tmp.iterdir()) == []
    assert tmux_server.clients() == []


def test_eof_after_four_requests_answers_all_four(tmux_server: Any, shell_pane: Any) -> None:
    pane = shell_pane("bash")
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    calls = [("list_panes", {}), ("run_shell_command", {"pane_id": pane.pane_id,
                                                       "command": "printf 'ok\\n'"})]
    for attempt in range(TRIES):
        code, answers, _ = printf(env, calls)
        assert code == 0, attempt
        assert sorted(answers) == [1, 2, 3, 4], (attempt, answers)
        assert answers[3]["result"]["structuredContent"]["panes"][0]["id"] == pane.pane_id
        run = answers[4]["result"]["structuredContent"]
        assert (run["outcome"], run["output"]) == ("completed", ["ok"]), (attempt, run)


def test_eof_cuts_a_wait_short_with_what_it_saw(tmux_server: Any, shell_pane: Any) -> None:
    pane = shell_pane("bash")
    pane.run("echo before-the-wait")
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    code, answers, elapsed = printf(env, [
        ("wait_for_channel", {"channel": "never", "timeout": 60}),
        ("wait_for_text", {"pane_id": pane.pane_id, "patterns": ["never-printed"],
                           "timeout": 60}),
        ("capture_pane", {"pane_id": pane.pane_id}),
    ])
    assert code == 0 and sorted(answers) == [1, 2, 3, 4, 5]
    for ident in (3, 4):
        cut = answers[ident]["result"]["structuredContent"]
        assert cut["outcome"] == "timed_out" and cut["note"].startswith("cut short: "), cut
        assert GRACE <= cut["seconds"] < GRACE + 2 * CUT + 1, cut
    assert "cursor" in answers[4]["result"]["_meta"]["muxport/unseen"]  # to go on from
    assert "before-the-wait" in answers[5]["result"]["structuredContent"]["content"]
    assert elapsed < 30


@pytest.mark.parametrize("how", ["terminal", "--verbose"])
def test_the_startup_line_goes_to_stderr_for_a_person(tmux_server: Any, how: str) -> None:
    env = clean_env({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path})
    data = b"".join(json.dumps(frame).encode() + b"\n" for frame in HANDSHAKE)
    if how == "terminal":
        reader, writer = pty.openpty()
        try:
            done = subprocess.run([launcher()], input=data, stdout=subprocess.PIPE,
                                  stderr=writer, env=env, timeout=60, check=False)
            os.close(writer)
            err = os.read(reader, 4096)
        finally:
            os.close(reader)
    else:
        done = subprocess.run([launcher(), "--verbose"], input=data, capture_output=True,
                              env=env, timeout=60, check=False)
        err = done.stderr
    assert done.returncode == 0
    assert b"watch it with: " in err and err.count(b"\n") == 1, err
    methods = [json.loads(line).get("method") for line in done.stdout.splitlines()]
    assert "notifications/message" not in methods


# Seconds from the spawn: loading (the SDK, the toolsets), connecting, startup, serving.
MOMENTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)


def marked(mark: str) -> list[int]:
    """The processes whose environment holds ``mark`` (a launcher's, and its children's)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours
            continue
    return found


def took_the_wire(pid: int) -> bool:
    """Whether the launcher runs: it has taken the wire (its fd 0 is then /dev/null)."""
    try:
        return os.readlink(f"/proc/{pid}/fd/0") == os.devnull
    except OSError:
        return False


def signalled(env: dict[str, str], moment: float, signum: int) -> tuple[int, float, bytes]:
    """Spawn the launcher (stdin open, as a client holds it), signal it ``moment`` seconds
    after the spawn, or once it runs if that is later (before its first line runs, the
    interpreter's own start is Python's: docs/reliability.md, "Ending"); its exit status,
    the seconds from the signal to the exit, and what it wrote on stderr."""
    spawned = time.monotonic()
    proc = subprocess.Popen([launcher()], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    try:
        eventually_blocking(lambda: took_the_wire(proc.pid), what="the launcher running",
                            within=20, every=0.002)
        time.sleep(max(0.0, spawned + moment - time.monotonic()))  # the moment
        code, elapsed = time_exit(proc, functools.partial(proc.send_signal, signum))
        return code, elapsed, proc.stderr.read()
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.parametrize("load", ["quiet", "busy"])
def test_a_signal_at_any_moment_ends_it_within_a_second_leaving_nothing(
    tmux_server: Any, tmp_path: Path, load: str
) -> None:
    # issue 29: SIGINT in the first 0.3 s ended it -2 with a KeyboardInterrupt traceback,
    # later it took up to 2.9 s; SIGTERM before serving killed it (-15) with its tmux
    # clients.
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    with busy_cores(2 if load == "busy" else 0):
        for index, moment in enumerate(MOMENTS):
            signum = (signal.SIGINT, signal.SIGTERM)[index % 2]
            mark = uuid.uuid4().hex
            env = clean_env({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                             "TMPDIR": str(private_tmp), "MUXPORT_SIGNAL_TEST": mark})
            code, elapsed, said = signalled(env, moment, signum)
            where = f"{signal.Signals(signum).name} at {moment} s ({load})"
            assert code == 128 + signum, (where, code, said)
            assert elapsed < 1.0, f"exit took {elapsed:.2f} s after {where}"
            assert said == b"", (where, said)  # no traceback, nothing at all
            assert marked(mark) == [], where  # no child of it runs on
            assert list(private_tmp.iterdir()) == [], where
            assert tmux_server.clients() == [], where

"""Who owns a run's private state, and what a cleanup after a crash may remove (issue 21):
the names, the owner's liveness, the pipe's command line. No tmux here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from muxport_execute.frames.local_files import Frame, prepare, waiting_channel
from muxport_execute.frames.local_text import command_head
from muxport_execute.host import owners
from muxport_execute.pane import raw_bytes
from muxport_execute.run import cleanup

pytestmark = pytest.mark.timeout(30)


def dead_pid() -> int:
    """The pid of a process that ran and was reaped."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_a_private_directory_is_named_after_its_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    frame = prepare("echo hi", "/usr/bin/tmux", "/tmp/sock", False, False)
    try:
        assert frame.directory.parent == tmp_path
        assert owners.owner_of(frame.directory.name) == owners.me()
        assert waiting_channel(frame.directory, "/tmp/sock") == frame.channel
        assert waiting_channel(frame.directory, "/tmp/other") is None  # another server's
        (frame.directory / "status").write_text("0\n")
        assert waiting_channel(frame.directory, "/tmp/sock") is None  # it signalled
    finally:
        frame.remove()


def test_only_a_provably_dead_owner_is_dead() -> None:
    me = owners.me()
    assert me is not None  # Linux /proc, as here and in CI
    assert not owners.is_dead(me)
    assert owners.is_dead(owners.Owner(me.pid, me.start + 1, me.scope))  # the pid reused
    assert owners.is_dead(owners.Owner(dead_pid(), me.start, me.scope))
    # another boot or pid namespace: its pids mean nothing here, so nothing is judged
    assert not owners.is_dead(owners.Owner(dead_pid(), me.start, "0" * 8))
    assert owners.owner_of("mxr-k3j4h5g6") is None  # an older muxport's: never judged
    assert owners.owner_of("mxr-lab3kd9_x") is None  # a test's TMPDIR (tests/reliability)
    assert owners.owner_of(f"mxr-{me.key}-ab_c1234") == me


def test_dead_directories_are_those_of_dead_owners_only(tmp_path: Path) -> None:
    me = owners.me()
    assert me is not None
    dead = tmp_path / f"mxr-{dead_pid()}.{me.start}.{me.scope}-abcd1234"
    live = tmp_path / f"mxr-{me.key}-abcd1234"
    foreign = tmp_path / f"mxr-{dead_pid()}.{me.start}.{'0' * 8}-abcd1234"
    legacy = tmp_path / "mxr-abcd1234"
    for directory in (dead, live, foreign, legacy):
        directory.mkdir()
    (tmp_path / f"mxr-{dead_pid()}.{me.start}.{me.scope}-file0000").write_text("")  # no dir
    os.symlink(dead, tmp_path / f"mxr-{dead_pid()}.{me.start}.{me.scope}-link0000")
    assert cleanup.dead_directories(str(tmp_path)) == [dead]


def test_a_pipe_names_its_pane_and_directory() -> None:
    directory = Path(f"/tmp/{owners.directory_prefix()}abcd1234")
    command = raw_bytes.open_pipe("%12", directory)[-1]
    dd = command.split('"')[1].removeprefix("exec ").replace("'", "").split()
    assert raw_bytes.pipe_of(dd) == (directory, "%12")
    assert raw_bytes.pipe_of(["/bin/dd", *dd[1:]]) == (directory, "%12")
    assert raw_bytes.pipe_of(["cat", *dd[1:]]) is None
    assert raw_bytes.pipe_of(["dd", "of=/tmp/mine/raw.3"]) is None  # not a private directory
    assert raw_bytes.pipe_of([]) is None


def test_the_command_file_says_when_the_shell_opened_it(tmp_path: Path) -> None:
    frame = Frame(nonce="a" * 32, channel="c", directory=tmp_path)
    posix = command_head(frame) + "echo hi\n"
    assert posix.splitlines() == [posix.rstrip("\n")]  # one line: the command's numbers kept
    assert posix.endswith("; echo hi\n") and f"'{tmp_path}/read'" in posix
    fish = Frame(nonce="a" * 32, channel="c", directory=tmp_path, fish=True)
    assert command_head(fish) == f"true >'{tmp_path}/read' 2>/dev/null; "
    (tmp_path / "cmd").write_text(posix)
    assert not frame.drop_command() and (tmp_path / "cmd").exists()  # not opened yet
    (tmp_path / "read").write_text("")
    assert frame.drop_command() and not (tmp_path / "cmd").exists()
    assert frame.drop_command()  # once gone, it stays gone


def test_the_record_is_read_back_and_only_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert cleanup.last_record() is None
    cleanup.record(cleanup.Cleaned(directories=2, pipes=1, waiters=1), "/tmp/sock")
    found = cleanup.last_record()
    assert found is not None
    assert (found["directories"], found["pipes"], found["waiters"]) == (2, 1, 1)
    assert found["socket"] == "/tmp/sock" and found["pid"] == os.getpid()
    assert [p.name for p in tmp_path.iterdir()] == [cleanup.record_path().name]
    survey = cleanup.survey()
    assert survey["left_now"] == {"directories": 0, "unfinished_runs": 0}
    assert survey["last_cleanup"] == found
    target = tmp_path / "elsewhere.json"
    os.replace(cleanup.record_path(), target)
    os.symlink(target, cleanup.record_path())
    assert cleanup.last_record() is None  # never followed
    if os.geteuid() == 0:  # another user's file of that name is not believed either
        os.unlink(cleanup.record_path())
        os.replace(target, cleanup.record_path())
        os.chown(cleanup.record_path(), 12345, -1)
        assert cleanup.last_record() is None

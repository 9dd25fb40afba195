"""``muxport --ssh`` when ssh fails (issue 23): a master connection killed under a call, a
refused key, an unknown host key, no sshd listening, and ``doctor`` over ssh.

Startup failures exit 2 with one line on stderr naming the fix; a call whose connection is
lost under it answers a tool error with an ssh error code, or is carried over a new
connection to what happened meanwhile; the next call connects anew either way.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from muxport.testing import CheckedCalls, eventually_blocking
from muxport.testing.clients import launcher
from muxport.testing.farhost import SSH_CODES

pytestmark = pytest.mark.timeout(60)


def lost_or_survived(answer: Any, survived: dict[str, Any]) -> None:
    """A call whose ssh master was killed under it answers an ssh tool error (retryable),
    or, carried over a new master, what happened meanwhile (``survived``): never a
    timeout, nor an outcome that blames the tmux server."""
    if answer.is_error:
        assert answer.meta["error_code"] in SSH_CODES, (answer.meta, answer.content[0].text)
        assert answer.meta["retryable"] is True, answer.meta
    else:
        data = answer.structured_content
        assert {key: data.get(key) for key in survived} == survived, data


async def test_a_master_killed_under_a_wait_for_text(far, armed_call):
    async with far.client(["inspect", "execute"]) as client:
        call = CheckedCalls(client)
        pane = far.server().shell_pane("bash")
        killed: list[int] = []

        def kill_then_print() -> None:
            killed.append(far.kill_master())
            pane.type('echo LATE-""TEXT')

        answer = await armed_call(
            client, "wait_for_text",
            {"pane_id": pane.pane_id, "patterns": ["LATE-TEXT"], "timeout": 30}, kill_then_print)
        lost_or_survived(answer, {"outcome": "matched", "matched_line": "LATE-TEXT"})
        listed = await call("list_sessions")
        assert [s["id"] for s in listed["sessions"]] == [pane.session_id]
        back = await call("run_shell_command", pane_id=pane.pane_id, command="echo back")
        assert (back["output"], back["exit_status"]) == (["back"], 0)
        assert len(far.masters()) == 1 and far.masters() != killed


async def test_a_master_killed_under_a_wait_for_channel(far, armed_call):
    async with far.client(["manage", "inspect"]) as client:
        server = far.server()
        killed: list[int] = []

        def kill_then_signal() -> None:
            killed.append(far.kill_master())
            server.cmd("wait-for", "-S", "far-late")

        answer = await armed_call(
            client, "wait_for_channel", {"channel": "far-late", "timeout": 30},
            kill_then_signal, "registered")
        lost_or_survived(answer, {"outcome": "signalled"})
        assert (await CheckedCalls(client)("list_sessions"))["sessions"] == []
        assert len(far.masters()) == 1 and far.masters() != killed


async def test_a_master_killed_between_calls_is_replaced_by_the_next_call(far):
    async with far.client(["inspect"]) as client:
        call = CheckedCalls(client)
        await call("list_sessions")
        killed = far.kill_master()
        listed = await call("list_sessions")
        assert listed["sessions"] == []
        assert len(far.masters()) == 1 and far.masters() != [killed]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.parametrize(
    ("case", "named"),
    [("wrong_key", ("refused", "IdentityFile")), ("unknown_host_key", ("host key",)),
     ("no_sshd", ("Port",))],
)
def test_startup_failure_exits_2_naming_the_fix(far, muxport_cli, tmp_path, case, named):
    if case == "wrong_key":
        key = tmp_path / "other"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)],
                       check=True, capture_output=True, timeout=30)
        args = far.args(identity=key)
    elif case == "unknown_host_key":
        empty = tmp_path / "known_hosts"
        empty.write_text("")
        args = far.args(known_hosts=empty)
    else:
        args = far.args(port=free_port())
    done = muxport_cli(*args)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("muxport: "), done.stderr
    for word in named:
        assert word in lines[0], lines[0]
    assert far.masters(anywhere=True) == []  # the launcher left no ssh behind
    assert not far.has_socket()  # and started nothing on the far host


def test_doctor_names_the_host_and_the_far_tmux(far, muxport_cli):
    before = set(Path("/tmp").glob("muxport-ssh-*"))
    done = muxport_cli("doctor", *far.args())
    left = set(Path("/tmp").glob("muxport-ssh-*")) - before
    for directory in left:  # a launcher's private directory (its control socket)
        shutil.rmtree(directory, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    version = subprocess.run([far.tmux, "-V"], capture_output=True, text=True,
                             check=True).stdout.strip()  # "tmux 3.3a"
    lines = done.stdout.splitlines()
    assert any(line.startswith("host: ") and far.destination in line for line in lines), lines
    assert any(line.startswith("tmux: ") and version in line for line in lines), lines
    # doctor ends its ssh master (it may still be exiting: no event marks its end)
    # and removes its private directory, as serving does
    eventually_blocking(lambda: far.masters(anywhere=True), lambda found: found == [],
                        what="doctor's ssh master to end", within=5)
    assert left == set()


def private_directories() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("muxport-ssh-*"))


def killed_launcher(far: Any) -> set[Path]:
    """Start a launcher serving ``far``, SIGKILL it once its master runs; its directory."""
    before = private_directories()
    launched = subprocess.Popen([launcher(), *far.args()], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:  # it connects while it waits for its client's first line
        eventually_blocking(far.masters, lambda found: len(found) == 1,
                            what="the launcher's ssh master", within=20)
        left = private_directories() - before
    finally:
        launched.kill()
        launched.wait(timeout=10)
    # its master ends with it (it reads a pipe the launcher held); its directory stays
    eventually_blocking(lambda: far.masters(anywhere=True), lambda found: found == [],
                        what="the killed launcher's ssh master to end", within=5)
    return left


async def test_a_killed_launchers_directory_goes_with_the_next_launcher(far):
    left = killed_launcher(far)
    assert len(left) == 1 and left <= private_directories()
    async with far.client(["inspect"]) as client:
        await CheckedCalls(client)("list_sessions")
    assert not left & private_directories()

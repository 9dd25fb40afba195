"""Reach fixtures: a real sshd on 127.0.0.1, test users for ssh and su, fish panes.

Everything is made by the tests and removed afterwards: the users (``userdel -r``, their
processes ended by pid first), the sshd (its own config, host key and user key in a
private directory; killed by pid), the sudoers drop-in. Tests run as root (here and in
CI: ``.ci/run``); without root, or without sshd/fish, the tests that need them skip.

A pane is ready when its shell has written to a FIFO named by ``MXREADY`` (passed
through ssh's ``SetEnv``, which this sshd accepts, and su's ``-w``): a signal, not a
poll of the screen.
"""

from __future__ import annotations

import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from muxport.testing.server import ShellPane, TmuxServer

READY_TIMEOUT = 20.0
READY_SH = (
    '[ -n "${MXREADY-}" ] && [ -p "$MXREADY" ] && { printf x >"$MXREADY"; unset MXREADY; }\n'
)
READY_FISH = (
    "if set -q MXREADY; and test -p $MXREADY; printf x >$MXREADY; set -e MXREADY; end\n"
)


@dataclass(frozen=True)
class TestUser:
    name: str
    uid: int
    home: Path
    password: str


@dataclass(frozen=True)
class Sshd:
    port: int
    key: Path
    known_hosts: Path

    def command(self, user: str) -> list[str]:
        return [
            "ssh", "-F", "/dev/null", "-t", "-p", str(self.port), "-i", str(self.key),
            "-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "StrictHostKeyChecking=yes",
            "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", f"{user}@127.0.0.1",
        ]


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _end_processes_of(uid: int) -> None:
    """End every process of the test user, by pid (they are all this session's)."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def _make_user(shell: str, sudo: bool) -> TestUser:
    name = "mxt" + secrets.token_hex(4)
    password = secrets.token_hex(8)
    _run("useradd", "-m", "-s", shell, name)
    subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True,
                   capture_output=True, timeout=30)
    home = Path(f"/home/{name}")
    # Realistic rc files: Debian's skeleton (HISTCONTROL=ignoreboth), then the ready signal.
    with open(home / ".bashrc", "a") as rc:
        rc.write(READY_SH)
    (home / ".profile").write_text(". ~/.bashrc 2>/dev/null\n" if shell.endswith("bash")
                                   else READY_SH)
    fish_dir = home / ".config" / "fish"
    fish_dir.mkdir(parents=True)
    (fish_dir / "config.fish").write_text(READY_FISH)
    # As after fish's first start: no background man-page scan writing completions.
    (home / ".local" / "share" / "fish" / "generated_completions").mkdir(parents=True)
    _run("chown", "-R", f"{name}:{name}", str(home))
    if sudo:
        rule = Path(f"/etc/sudoers.d/{name}")
        rule.write_text(f"{name} ALL=(ALL:ALL) ALL\n")
        rule.chmod(0o440)
    import pwd

    return TestUser(name, pwd.getpwnam(name).pw_uid, home, password)


def _remove_user(user: TestUser) -> None:
    _end_processes_of(user.uid)
    Path(f"/etc/sudoers.d/{user.name}").unlink(missing_ok=True)
    subprocess.run(["userdel", "-f", "-r", user.name], capture_output=True, timeout=30)


def _need_root(*programs: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("reach tests create users and start sshd: they run as root (CI does)")
    for program in programs:
        if shutil.which(program) is None and not Path(program).exists():
            pytest.skip(f"{program} is not installed")


@pytest.fixture(scope="session")
def test_user() -> Iterator[TestUser]:
    """A user with bash as login shell and sudo rights (asked with its password)."""
    _need_root("useradd", "bash", "sudo")
    user = _make_user("/bin/bash", sudo=True)
    try:
        yield user
    finally:
        _remove_user(user)


@pytest.fixture(scope="session")
def fish_user() -> Iterator[TestUser]:
    """A user whose login shell is fish."""
    _need_root("useradd", "fish")
    user = _make_user(shutil.which("fish") or "/usr/bin/fish", sudo=False)
    try:
        yield user
    finally:
        _remove_user(user)


@pytest.fixture(scope="session")
def sshd(test_user: TestUser, fish_user: TestUser) -> Iterator[Sshd]:
    """sshd on 127.0.0.1 on a free port, with host and user keys made here."""
    _need_root("/usr/sbin/sshd", "ssh", "ssh-keygen")
    work = Path(tempfile.mkdtemp(prefix="muxport-sshd-"))
    work.chmod(0o755)
    privsep = Path("/run/sshd")
    made_privsep = not privsep.exists()
    process: subprocess.Popen[bytes] | None = None
    try:
        if made_privsep:
            privsep.mkdir(mode=0o755)
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(work / "host"))
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(work / "user"))
        keys = work / "authorized_keys"
        shutil.copy(work / "user.pub", keys)
        keys.chmod(0o644)
        port = _free_port()
        config = work / "sshd_config"
        config.write_text(
            f"Port {port}\nListenAddress 127.0.0.1\nHostKey {work / 'host'}\n"
            f"AuthorizedKeysFile {keys}\nPidFile none\nUsePAM no\nStrictModes no\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            f"AllowUsers {test_user.name} {fish_user.name}\nAcceptEnv MXREADY\n"
            "PrintMotd no\nPrintLastLog no\nBanner none\n"
        )
        host_key = (work / "host.pub").read_text().split()
        known = work / "known_hosts"
        known.write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
        process = subprocess.Popen(
            ["/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        server = Sshd(port, work / "user", known)
        _wait_listening(port, process)
        yield server
    finally:
        if process is not None:
            process.kill()
            process.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
        if made_privsep:
            shutil.rmtree(privsep, ignore_errors=True)


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    """Block until sshd accepts connections (bounded): sshd has no ready signal of its own
    in ``-D`` mode, and a refused connect returns at once, so this is a bounded retry."""
    import time

    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited: {process.stderr.read() if process.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError("sshd did not listen") from None
            time.sleep(0.02)  # bounded: nothing signals that sshd is listening


class ReadyFifo:
    """A FIFO the pane's shell writes one byte to once its rc file has run."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / f"ready-{secrets.token_hex(4)}"
        os.mkfifo(self.path, 0o622)
        self.path.chmod(0o622)
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)

    def wait(self, what: str) -> None:
        try:
            readable, _, _ = select.select([self.fd], [], [], READY_TIMEOUT)
            if not readable or not os.read(self.fd, 1):
                raise TimeoutError(f"{what} did not become ready in {READY_TIMEOUT} s")
        finally:
            os.close(self.fd)
            self.path.unlink(missing_ok=True)


def _pane(server: TmuxServer, argv: list[str], env: dict[str, str], width: int) -> str:
    command = " ".join(["exec", "env", *(f"{k}={v}" for k, v in env.items()),
                        *(_sh_quote(a) for a in argv)])
    out = server.cmd("new-session", "-d", "-P", "-F", "#{pane_id} #{window_id} #{session_id}",
                     "-x", str(width), "-y", "24", command)
    return out


def _sh_quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


@pytest.fixture
def reach_pane(
    tmux_server: TmuxServer, sshd: Sshd, test_user: TestUser, fish_user: TestUser
) -> Iterator[Callable[..., ShellPane]]:
    """``reach_pane("ssh"|"su"|"ssh-fish"|"su-fish", width=80)``: a pane, ready, whose
    shell belongs to a test user, reached through ssh or ``su -``."""
    fifo_dir = Path(tempfile.mkdtemp(prefix="muxport-ready-"))
    fifo_dir.chmod(0o755)

    def make(how: str, width: int = 80) -> ShellPane:
        fifo = ReadyFifo(fifo_dir)
        user = fish_user if how.endswith("fish") else test_user
        if how.startswith("ssh"):
            argv = sshd.command(user.name)
            argv[1:1] = ["-o", f"SetEnv=MXREADY={fifo.path}"]
            env: dict[str, str] = {}
        else:
            argv = ["su", "-", "-w", "MXREADY", user.name]
            env = {"MXREADY": str(fifo.path)}
        out = _pane(tmux_server, argv, env, width)
        pane_id, window_id, session_id = out.split()
        fifo.wait(f"{how} pane {pane_id}")
        shell = "fish" if how.endswith("fish") else "bash"
        return ShellPane(tmux_server, pane_id, window_id, session_id, shell, width)

    yield make
    shutil.rmtree(fifo_dir, ignore_errors=True)


@pytest.fixture
def fish_pane(tmux_server: TmuxServer) -> Callable[..., ShellPane]:
    """A local fish pane with its own config directory and a bare ``$ `` prompt."""
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")

    def make(width: int = 80) -> ShellPane:
        home = Path(tempfile.mkdtemp(prefix="fish-", dir=tmux_server.dir))
        (home / "fish" / "generated_completions").mkdir(parents=True)  # no man-page scan
        (home / "fish" / "config.fish").write_text(
            "set -g fish_greeting ''\nfunction fish_prompt; printf '$ '; end\n" + READY_FISH
        )
        fifo = ReadyFifo(home)
        env = {"XDG_CONFIG_HOME": str(home), "XDG_DATA_HOME": str(home),
               "MXREADY": str(fifo.path)}
        out = _pane(tmux_server, ["fish", "-i"], env, width)
        pane_id, window_id, session_id = out.split()
        fifo.wait(f"fish pane {pane_id}")
        return ShellPane(tmux_server, pane_id, window_id, session_id, "fish", width)

    return make

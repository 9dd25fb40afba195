"""Shells muxport cannot hand a file to, for tests and bench/: a real sshd on 127.0.0.1,
test users for ``ssh`` and ``su -``, fish panes.

Everything is made here and removed by the matching call: users (``remove_user``: their
processes ended by pid, then ``userdel -r``), the sshd (``SshdProcess.stop``: killed by
pid, its private directory with host key, user key and config removed), a sudoers
drop-in per user. Creating users and starting sshd needs root (as in CI).

A pane is ready when its shell has written one byte to a FIFO named by ``MXREADY``
(passed through ssh's ``SetEnv``, which this sshd accepts, and su's ``-w``): a signal,
not a poll of the screen.
"""

from __future__ import annotations

import os
import pwd
import secrets
import select
import shutil
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from muxport.testing.server import ShellPane, TmuxServer
from muxport.testing.waiting import eventually_blocking

READY_TIMEOUT = 20.0
READY_SH = (
    '[ -n "${MXREADY-}" ] && [ -p "$MXREADY" ] && { printf x >"$MXREADY"; unset MXREADY; }\n'
)
READY_FISH = "if set -q MXREADY; and test -p $MXREADY; printf x >$MXREADY; set -e MXREADY; end\n"


@dataclass(frozen=True)
class TestUser:
    name: str
    uid: int
    home: Path
    password: str


def _run(*argv: str, stdin: str | None = None) -> None:
    subprocess.run(argv, input=stdin, text=True, check=True, capture_output=True, timeout=30)


def make_user(shell: str, sudo: bool = False) -> TestUser:
    """A new user with a random name and password, Debian's skeleton rc files plus the
    ready signal; with ``sudo``, a sudoers rule that asks for its password."""
    name = "mxt" + secrets.token_hex(4)
    password = secrets.token_hex(8)
    _run("useradd", "-m", "-s", shell, name)
    _run("chpasswd", stdin=f"{name}:{password}\n")
    home = Path(pwd.getpwnam(name).pw_dir)
    with open(home / ".bashrc", "a") as rc:  # skeleton: HISTCONTROL=ignoreboth
        rc.write(READY_SH)
    (home / ".profile").write_text(
        ". ~/.bashrc 2>/dev/null\n" if shell.endswith("bash") else READY_SH
    )
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
    return TestUser(name, pwd.getpwnam(name).pw_uid, home, password)


def kill_processes(uid: int) -> None:
    """SIGKILL every process of ``uid`` (by pid: all of a test user's are this run's)."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass


def remove_user(user: TestUser) -> None:
    """End the user's processes, then remove it."""
    kill_processes(user.uid)
    Path(f"/etc/sudoers.d/{user.name}").unlink(missing_ok=True)
    subprocess.run(["userdel", "-f", "-r", user.name], capture_output=True, timeout=30)


@dataclass
class SshdProcess:
    """sshd on 127.0.0.1 with its own config, host key and user key."""

    port: int
    directory: Path
    process: subprocess.Popen[bytes]
    made_privsep: bool

    @property
    def key(self) -> Path:
        return self.directory / "user"

    def command(self, user: str, ready: Path | None = None) -> list[str]:
        """The ssh argv that logs ``user`` in without a prompt of any kind."""
        argv = ["ssh", "-F", "/dev/null", "-t", "-p", str(self.port), "-i", str(self.key),
                "-o", f"UserKnownHostsFile={self.directory / 'known_hosts'}",
                "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
                "-o", "LogLevel=ERROR"]
        if ready is not None:
            argv += ["-o", f"SetEnv=MXREADY={ready}"]
        return [*argv, f"{user}@127.0.0.1"]

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)
        if self.made_privsep:
            shutil.rmtree("/run/sshd", ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_sshd(users: list[str]) -> SshdProcess:
    """Start sshd (``-D -e -f``) for ``users`` on a free loopback port; wait until it listens."""
    directory = Path(tempfile.mkdtemp(prefix="mx-sshd-"))
    directory.chmod(0o755)  # the users' side reads authorized_keys from here
    privsep = Path("/run/sshd")
    made_privsep = not privsep.exists()
    if made_privsep:
        privsep.mkdir(mode=0o755)
    _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(directory / "host"))
    _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(directory / "user"))
    keys = directory / "authorized_keys"
    shutil.copy(directory / "user.pub", keys)
    keys.chmod(0o644)
    port = _free_port()
    config = directory / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {directory / 'host'}\n"
        f"AuthorizedKeysFile {keys}\nPidFile none\nUsePAM no\nStrictModes no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        f"AllowUsers {' '.join(users)}\nAcceptEnv MXREADY\n"
        "PrintMotd no\nPrintLastLog no\nBanner none\n"
    )
    kind, key = (directory / "host.pub").read_text().split()[:2]
    (directory / "known_hosts").write_text(f"[127.0.0.1]:{port} {kind} {key}\n")
    process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(config)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sshd = SshdProcess(port, directory, process, made_privsep)

    def listening() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    try:  # bounded: sshd -D has no ready signal, and a refused connect returns at once
        eventually_blocking(listening, what="sshd listening", within=READY_TIMEOUT)
    except (RuntimeError, TimeoutError):
        sshd.stop()
        raise
    return sshd


class ReadyFifo:
    """A FIFO the pane's shell writes one byte to once its rc file has run."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / f"ready-{secrets.token_hex(4)}"
        os.mkfifo(self.path)
        self.path.chmod(0o622)  # the test user writes it
        self.fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)

    def wait(self, what: str) -> None:
        try:
            readable, _, _ = select.select([self.fd], [], [], READY_TIMEOUT)
            if not readable or not os.read(self.fd, 1):
                raise TimeoutError(f"{what} did not become ready in {READY_TIMEOUT} s")
        finally:
            os.close(self.fd)
            self.path.unlink(missing_ok=True)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def ready_pane(
    server: TmuxServer, argv: list[str], env: dict[str, str], fifo: ReadyFifo, shell: str,
    width: int = 80,
) -> ShellPane:
    """A new session running ``argv`` (with ``env``), returned once its shell is ready."""
    words = ["exec", "env", *(f"{k}={v}" for k, v in env.items()), *map(_quote, argv)]
    out = server.cmd("new-session", "-d", "-P", "-F", "#{pane_id} #{window_id} #{session_id}",
                     "-x", str(width), "-y", "24", " ".join(words))
    pane_id, window_id, session_id = out.split()
    fifo.wait(f"{shell} pane {pane_id}")
    return ShellPane(server, pane_id, window_id, session_id, shell, width)


def ssh_pane(server: TmuxServer, sshd: SshdProcess, user: TestUser, fifos: Path,
             shell: str = "bash", width: int = 80) -> ShellPane:
    fifo = ReadyFifo(fifos)
    return ready_pane(server, sshd.command(user.name, fifo.path), {}, fifo, shell, width)


def su_pane(server: TmuxServer, user: TestUser, fifos: Path, shell: str = "bash",
            width: int = 80) -> ShellPane:
    fifo = ReadyFifo(fifos)
    argv = ["su", "-", "-w", "MXREADY", user.name]
    return ready_pane(server, argv, {"MXREADY": str(fifo.path)}, fifo, shell, width)


FISH_CONFIG = "set -g fish_greeting ''\nfunction fish_prompt; printf '$ '; end\n"


def fish_pane(server: TmuxServer, width: int = 80, config: str = FISH_CONFIG) -> ShellPane:
    """A local fish pane with its own config directory (``$XDG_CONFIG_HOME/fish``, its
    data in ``$XDG_DATA_HOME/fish``: the one ``fish-*`` directory of the server's), whose
    ``config.fish`` holds ``config`` (by default: no greeting, a bare ``$ `` prompt)."""
    home = Path(tempfile.mkdtemp(prefix="fish-", dir=server.dir))
    (home / "fish" / "generated_completions").mkdir(parents=True)  # no man-page scan
    (home / "fish" / "config.fish").write_text(config + "\n" + READY_FISH)
    fifo = ReadyFifo(home)
    env = {"XDG_CONFIG_HOME": str(home), "XDG_DATA_HOME": str(home), "MXREADY": str(fifo.path)}
    return ready_pane(server, ["fish", "-i"], env, fifo, "fish", width)

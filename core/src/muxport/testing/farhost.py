"""A far host for ``muxport --ssh``, for tests and bench/: a test user on 127.0.0.1 reached
through the kit's own sshd (``reach``), whose tmux server muxport serves over ssh.

``far_host()`` makes the user (login shell bash; the directory of the tmux binary under
test first on its ``PATH``, for ssh commands and login shells alike) and an sshd that
lets it in with the sshd's user key; it removes both afterwards. The tmux binary is the
one on this process's ``PATH`` (the suite's ``--tmux-bin`` puts its directory first);
one the user cannot run (under root's 0700 home) is copied into the user's home.

``FarHost.args()`` is the launcher's argv for that host, ``FarHost.client()`` the kit's
``stdio_client`` over it, ``FarHost.server()`` the far user's running server as a
``TmuxServer`` (root is let in: tmux's server-access admits root), ``FarHost.masters()``
the ssh master connections muxports started from this process hold to it.
Creating users and starting sshd needs root (as in CI).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from mcp import Client

from muxport._internal.facts import for_server
from muxport.testing import reach
from muxport.testing.clients import selection_env, stdio_client
from muxport.testing.server import TmuxServer
from muxport.testing.waiting import eventually_blocking

DAEMON_NAME = "muxport"  # the dedicated daemon's socket name (connection.DAEMON_NAME)
SSH_CODES = frozenset({"ssh_unreachable", "ssh_auth_refused", "ssh_host_key",
                       "ssh_connection_lost"})


class FarServer(TmuxServer):
    """A running tmux server of the far user, reached by root over its socket.

    ``shell_pane`` works as on a kit server: its rc files go to a directory in the far
    user's home (the far shells read them), as ``rc_window``'s, whose shell has rc lines
    of the test's and writes its history there; ``kill()`` kills the server and its
    panes."""

    def __init__(self, socket_path: str, binary: str, user: reach.TestUser) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="muxport-far-", dir=user.home))
        self.uid, self.gid = user.uid, pwd.getpwnam(user.name).pw_gid
        os.chown(self.dir, self.uid, self.gid)
        self.socket_path = socket_path
        self.binary = binary
        self.version = self.cmd("display-message", "-p", "#{version}").strip()
        self.send_keys = for_server("send-keys", self.version)

    def pid(self) -> int:
        return int(self.cmd("display-message", "-p", "#{pid}").strip())

    def rc_window(self, shell: str, rc: str, name: str) -> str:
        """A new window whose ``shell`` (bash or zsh) has a bare ``$ `` prompt and then
        ``rc`` in its rc file (in directory ``name`` of the far user's home, also its
        ``HISTFILE``'s), at its prompt; its pane id."""
        home = self.dir / name
        home.mkdir(mode=0o755)
        os.chown(home, self.uid, self.gid)
        prompt = "unsetopt PROMPT_SP\nPROMPT='$ '\n" if shell == "zsh" else "PS1='$ '\n"
        env = f"env HISTFILE={home}/history"
        if shell == "zsh":
            (home / ".zshrc").write_text(prompt + rc + "\n")
            command = f"{env} ZDOTDIR={home} zsh -i"
        else:
            (home / "bashrc").write_text(prompt + rc + "\n")
            command = f"{env} bash --noprofile --rcfile {home}/bashrc -i"
        pane = self.cmd("new-window", "-P", "-F", "#{pane_id}", command).strip()
        eventually_blocking(lambda: self.lines("capture-pane", "-p", "-t", pane),
                            lambda rows: "$" in (row.rstrip() for row in rows),
                            what=f"the far {shell}'s prompt", within=20)
        return pane


@dataclass
class FarHost:
    """The far user, its sshd and the tmux binary it runs."""

    user: reach.TestUser
    sshd: reach.SshdProcess
    tmux: str  # absolute path of the tmux binary the far user runs

    @property
    def destination(self) -> str:
        return f"{self.user.name}@127.0.0.1"

    @property
    def known_hosts(self) -> Path:
        return self.sshd.directory / "known_hosts"

    def socket_path(self, name: str = DAEMON_NAME) -> str:
        """Where the far user's server named ``name`` listens (no TMUX_TMPDIR there)."""
        return f"/tmp/tmux-{self.user.uid}/{name}"

    def has_socket(self, name: str = DAEMON_NAME) -> bool:
        """Whether the far user's server socket ``name`` exists (a server was started)."""
        return os.path.exists(self.socket_path(name))

    def options(self, identity: Path | None = None, known_hosts: Path | None = None,
                port: int | None = None) -> list[str]:
        """The ``-o`` options that log the far user in without a prompt of any kind."""
        return [f"Port={port or self.sshd.port}", f"IdentityFile={identity or self.sshd.key}",
                f"UserKnownHostsFile={known_hosts or self.known_hosts}",
                "StrictHostKeyChecking=yes"]

    def args(self, *, tmux: bool = True, identity: Path | None = None,
             known_hosts: Path | None = None, port: int | None = None) -> list[str]:
        """``--ssh DESTINATION --ssh-option ... [--tmux BINARY]`` for the launcher."""
        argv = ["--ssh", self.destination]
        for option in self.options(identity, known_hosts, port):
            argv += ["--ssh-option", option]
        return [*argv, "--tmux", self.tmux] if tmux else argv

    def client(self, toolsets: Sequence[str] | None = None, args: Sequence[str] = (),
               env: Mapping[str, str] | None = None) -> AbstractAsyncContextManager[Client]:
        """The installed launcher serving this host, over real stdio (the kit's
        ``stdio_client``): ``async with far.client(["inspect"]) as client``."""
        full = selection_env(toolsets)
        full.update(env or {})
        return stdio_client(full, args=[*self.args(), *args])

    def server(self, name: str = DAEMON_NAME) -> FarServer:
        """The far user's running server named ``name`` (the daemon muxport started)."""
        return FarServer(self.socket_path(name), self.tmux, self.user)

    def as_user(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """``argv`` run as the far user (``runuser``), to completion."""
        return subprocess.run(["runuser", "-u", self.user.name, "--", *argv],
                              capture_output=True, text=True, timeout=30, check=False)

    def masters(self, anywhere: bool = False) -> list[int]:
        """The ssh master connections to this host (argv holds ``ControlMaster=yes`` and
        the destination) of this process's descendants (the launchers it started), or,
        ``anywhere``, of any process (a launcher gone leaves its ssh to init)."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            argv = _argv(entry)
            if (argv and os.path.basename(argv[0]) == "ssh" and self.destination in argv
                    and any(a.endswith("ControlMaster=yes") for a in argv)
                    and (anywhere or _descends(int(entry), os.getpid()))):
                found.append(int(entry))
        return found

    def kill_master(self) -> int:
        """SIGKILL the one ssh master connection to this host and wait until it is dead
        (kill returns before the process has run its death: a call made at once could
        still reach the dying master); its pid."""
        masters = self.masters()
        if len(masters) != 1:
            raise AssertionError(f"expected one ssh master to {self.destination}: {masters}")
        os.kill(masters[0], signal.SIGKILL)
        eventually_blocking(lambda: _state(masters[0]), lambda state: state in ("Z", "X", ""),
                            what=f"the killed ssh master {masters[0]} dying", within=5)
        return masters[0]

    def reset(self) -> None:
        """Kill the ssh masters left to this host, the far user's servers and every
        process of the user (a launcher is root's: none of them), and remove the sockets."""
        for pid in self.masters(anywhere=True):
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        sockets = Path(self.socket_path()).parent
        for path in sockets.iterdir() if sockets.is_dir() else ():
            subprocess.run([self.tmux, "-S", str(path), "kill-server"],
                           capture_output=True, timeout=10, check=False)
        reach.kill_processes(self.user.uid)
        shutil.rmtree(sockets, ignore_errors=True)
        for leftover in self.user.home.glob("muxport-far-*"):
            shutil.rmtree(leftover, ignore_errors=True)


def _state(pid: int) -> str:
    """The process state letter of ``pid`` ("Z": dead, not yet reaped; "": gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return ""
    return stat.rpartition(b") ")[2][:1].decode()


def _argv(pid: str) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return 0
    return int(stat.rsplit(b")", 1)[1].split()[1])  # field 4 of stat: the parent


def _descends(pid: int, ancestor: int) -> bool:
    while pid > 1:
        pid = _parent(pid)
        if pid == ancestor:
            return True
    return False


def _reachable_tmux(user: reach.TestUser, binary: str) -> str:
    """``binary``, or a copy in the user's home if the user cannot run it."""
    if subprocess.run(["runuser", "-u", user.name, "--", "test", "-x", binary],
                      capture_output=True, timeout=30, check=False).returncode == 0:
        return binary
    folder = user.home / "bin"
    folder.mkdir(exist_ok=True)
    copy = folder / "tmux"
    shutil.copy(binary, copy)
    copy.chmod(0o755)
    return str(copy)


def _put_first_on_path(user: reach.TestUser, folder: str) -> None:
    """``folder`` first on the user's PATH: the top of ~/.bashrc (Debian's bash reads it
    for ssh commands too, before its interactive-only part) and ~/.zshenv."""
    line = f"export PATH={folder}:$PATH\n"
    rc = user.home / ".bashrc"
    rc.write_text(line + rc.read_text())
    zshenv = user.home / ".zshenv"
    zshenv.write_text(line)
    os.chown(zshenv, user.uid, pwd.getpwnam(user.name).pw_gid)


@contextmanager
def far_host(tmux: str = "tmux") -> Iterator[FarHost]:
    """A far user and its sshd, both removed afterwards (needs root)."""
    binary = shutil.which(tmux)
    if binary is None:
        raise RuntimeError(f"{tmux}: not found on PATH")
    user = reach.make_user("/bin/bash")
    try:
        sshd = reach.start_sshd([user.name])
        try:
            host = FarHost(user, sshd, _reachable_tmux(user, os.path.abspath(binary)))
            _put_first_on_path(user, os.path.dirname(host.tmux))
            try:
                yield host
            finally:
                host.reset()
        finally:
            sshd.stop()
    finally:
        reach.remove_user(user)

"""A real, isolated tmux server for tests, and shell panes that signal when they are ready."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from muxport._internal.facts import for_server, version_key
from muxport.testing.waiting import eventually_blocking

READY_TIMEOUT = 20.0
CONFIG = "set -s exit-empty off\nset -g status off\nset -g remain-on-exit off\n"
SHELLS = ("bash", "zsh", "dash", "sh")
_counter = itertools.count(1)


def fd_links(pid: str) -> list[str]:
    """What the open descriptors of ``pid`` point to (those closed meanwhile left out)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []
    links = []
    for fd in fds:
        try:
            links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return links


class TmuxServer:
    """A tmux server on a private socket in a private directory; ``kill()`` removes both."""

    def __init__(self, binary: str = "tmux") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="muxport-test-"))
        self.socket_path = str(self.dir / "tmux.sock")
        self.binary = shutil.which(binary) or binary
        config = self.dir / "tmux.conf"
        config.write_text(CONFIG)
        self.cmd("-f", str(config), "start-server")
        self.version = self.cmd("display-message", "-p", "#{version}").strip()
        # send-keys as muxport sends it to this version (tmux 3.7 refuses keys whose
        # implicit target client is read-only, as a feed is: facts.for_server)
        self.send_keys = for_server("send-keys", self.version)

    def cmd(self, *args: str, check: bool = True, timeout: float = 20.0) -> str:
        """Run tmux against this server (synchronously: tests only) and return stdout."""
        done = subprocess.run(
            [self.binary, "-S", self.socket_path, *self.sized(args)],
            capture_output=True, text=True, timeout=timeout, check=False,
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def sized(self, args: tuple[str, ...]) -> tuple[str, ...]:
        """``new-session -x/-y`` that keeps its size on tmux 3.2a, which sizes the window
        from the creating client instead unless ``window-size`` is manual while it is made
        (muxport itself resizes after: create.py). Global manual, for that one command."""
        if (not args or args[0] not in ("new-session", "new") or not {"-x", "-y"} & {*args}
                or version_key(getattr(self, "version", "")) >= (3, 3, "a")):
            return args
        return ("set-option", "-g", "window-size", "manual", ";", *args, ";",
                "set-option", "-gu", "window-size")

    def lines(self, *args: str) -> list[str]:
        return self.cmd(*args).splitlines()

    def wait_for(self, channel: str, timeout: float = READY_TIMEOUT) -> None:
        """Block until ``tmux wait-for -S channel`` is run (bounded)."""
        self.cmd("wait-for", channel, timeout=timeout)

    def kill_pane_program(self, pane_id: str, timeout: float = READY_TIMEOUT) -> None:
        """End a pane's program with SIGKILL and wait until tmux shows the pane dead.

        The pane stays (dead) only where ``remain-on-exit`` is on. tmux fires no hook
        when a pane's pty closes (``pane-died`` waits for the exit status, which tmux
        3.3a was seen to collect late, or not at all, under heavy load), so this is a
        bounded poll of ``pane_dead``.
        """
        pid = int(self.cmd("display-message", "-p", "-t", pane_id, "#{pane_pid}").strip())
        os.kill(pid, signal.SIGKILL)
        eventually_blocking(  # no tmux event marks a closed pty
            lambda: self.cmd("display-message", "-p", "-t", pane_id, "#{pane_dead}").strip(),
            lambda dead: dead == "1", what=f"pane {pane_id} dead after SIGKILL", within=timeout,
        )

    def wait_exit_status(self, pane_id: str, timeout: float = READY_TIMEOUT) -> str:
        """Wait until tmux has collected a dead pane's exit status, and return it.

        Under heavy load (another test suite beside this one) tmux 3.3a was seen to miss
        the SIGCHLD of a pane's program and leave it a zombie: the pane shows dead, but
        no status ever arrives and ``pane-died`` never fires. strace showed one more
        SIGCHLD makes the server reap it, so the server gets one if the status is late.
        A bounded poll: tmux fires no event before the status is known.
        """
        nudge_at = time.monotonic() + 1.0

        def status() -> str:
            nonlocal nudge_at
            if time.monotonic() > nudge_at:  # once
                os.kill(int(self.cmd("display-message", "-p", "#{pid}").strip()), signal.SIGCHLD)
                nudge_at = float("inf")
            return self.cmd("display-message", "-p", "-t", pane_id, "#{pane_dead_status}").strip()

        return eventually_blocking(status, what=f"an exit status for pane {pane_id}",
                                   within=timeout)

    def clients(self) -> list[str]:
        done = subprocess.run(
            [self.binary, "-S", self.socket_path, "list-clients", "-F",
             "#{client_name} #{client_flags}"],
            capture_output=True, text=True, timeout=20, check=False,
        )
        # tmux 3.3a answers "no current target" on a server without sessions: no clients.
        if done.returncode != 0 and "no current target" not in done.stderr:
            raise RuntimeError(f"tmux list-clients failed: {done.stderr.strip()}")
        return done.stdout.splitlines()

    def connections(self) -> int:
        """How many clients are connected to the server: forked ``tmux`` processes and
        muxport's socket clients alike (neither shows in ``list-clients``). Counted from
        /proc without running tmux, which would connect one more."""
        listening = ""
        with open("/proc/net/unix") as table:
            for line in table:
                fields = line.split()
                # Accepted sockets show the path too; the listening one has __SO_ACCEPTCON.
                if len(fields) >= 8 and fields[-1] == self.socket_path and fields[3] == "00010000":
                    listening = fields[6]
        if not listening:
            return 0
        target = f"socket:[{listening}]"
        cached = getattr(self, "_server_pid", None)
        for pid in ([cached] if cached else []) + list(filter(str.isdigit, os.listdir("/proc"))):
            links = fd_links(pid)
            if target in links:  # the server: every other socket it holds is a client's
                self._server_pid = pid
                return sum(link.startswith("socket:") and link != target for link in links)
        return 0

    def buffers(self) -> list[str]:
        return self.lines("list-buffers", "-F", "#{buffer_name}")

    def shell_pane(
        self, shell: str = "bash", width: int = 80, height: int = 24, session: str | None = None
    ) -> ShellPane:
        """A new session whose only pane runs ``shell`` with a bare ``$ `` prompt, ready."""
        if shell not in SHELLS:
            raise ValueError(f"shell must be one of {SHELLS}")
        n = next(_counter)
        channel = f"muxport-ready-{os.getpid()}-{n}"
        rc = self.dir / f"rc{n}"
        rc.mkdir()
        ready = f"PS1='$ '\n{self.binary} -S {self.socket_path} wait-for -S {channel}\n"
        if shell == "zsh":
            (rc / ".zshrc").write_text("unsetopt PROMPT_SP\nPROMPT='$ '\n" + ready)
            command = f"exec env HISTFILE={rc}/history ZDOTDIR={rc} zsh -i"
        elif shell == "bash":
            (rc / "bashrc").write_text(ready)
            command = f"exec env HISTFILE={rc}/history bash --noprofile --rcfile {rc}/bashrc -i"
        else:
            (rc / "env").write_text(ready)
            command = f"exec env HISTFILE={rc}/history ENV={rc}/env {shell} -i"
        name = session or f"t{n}"
        out = self.cmd(
            "new-session", "-d", "-P", "-F", "#{pane_id} #{window_id} #{session_id}",
            "-s", name, "-x", str(width), "-y", str(height), command,
        )
        pane_id, window_id, session_id = out.split()
        self.wait_for(channel)
        return ShellPane(self, pane_id, window_id, session_id, shell, width)

    def kill(self) -> None:
        """Kill the server and everything its panes started. tmux hangs up on its panes, but
        a shell can outlive that (ksh93 with a KEYBD trap spins on its deleted terminal), and
        a test's leftovers would slow every later test."""
        try:
            listed = self.cmd("list-panes", "-a", "-F", "#{pane_pid}", check=False, timeout=5)
            panes = listed.split()
        except (OSError, subprocess.SubprocessError):  # a stopped or gone server
            panes = []
        self.cmd("kill-server", check=False)
        kill_sessions({int(pid) for pid in panes if pid.isdigit()})
        shutil.rmtree(self.dir, ignore_errors=True)


def kill_sessions(leaders: set[int]) -> None:
    """SIGKILL every process in the sessions that ``leaders`` lead (a pane's program leads
    its own session: tmux starts it with setsid)."""
    if not leaders:
        return
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) in leaders:  # field 6 of stat: the session id
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass


@dataclass
class ShellPane:
    """A pane running a shell, with helpers that wait on signals rather than sleeping."""

    server: TmuxServer
    pane_id: str
    window_id: str
    session_id: str
    shell: str
    width: int

    def type(self, text: str, enter: bool = True) -> None:
        keys = self.server.send_keys
        self.server.cmd(*keys, "-t", self.pane_id, "-l", "--", text)
        if enter:
            self.server.cmd(*keys, "-t", self.pane_id, "Enter")

    def run(self, command: str, timeout: float = READY_TIMEOUT) -> None:
        """Type ``command`` and wait until it has finished (it signals a private channel)."""
        channel = f"muxport-done-{os.getpid()}-{next(_counter)}"
        signal = f"{self.server.binary} -S {self.server.socket_path} wait-for -S {channel}"
        self.type(f"{command}; {signal}")
        self.server.wait_for(channel, timeout)

    def screen(self, history: bool = False) -> list[str]:
        args = ["-S", "-"] if history else []
        lines = self.server.lines("capture-pane", "-p", "-J", "-t", self.pane_id, *args)
        # tmux 3.2a pads joined lines with spaces; muxport trims them there (padding.py)
        padded = version_key(self.server.version) < (3, 3, "a")
        return [line.rstrip(" ") for line in lines] if padded else lines

    def option(self, name: str) -> str:
        return self.server.cmd("show-options", "-pqv", "-t", self.pane_id, name).strip()

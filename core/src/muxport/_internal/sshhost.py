"""A tmux server on another host, reached over OpenSSH (docs/ssh.md).

One ssh master connection (``ControlMaster``, its control socket in a private 0700
directory) carries everything: the far server's socket is forwarded to a local socket in
that directory, so tmux's client protocol runs over it as locally (``wire*.py``), and
whatever must be a forked tmux client (control mode, file commands) is an ``ssh -S``
session on the master running the far tmux. Nothing is installed on the far host.

When the master dies (the network, the far sshd, a kill), an invocation it cut answers
``ssh_connection_lost``; every invocation first makes sure a master runs (``ensure``), so
the next call, and the next look of a wait or a run in flight, use a new one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Sequence

import anyio
from anyio.abc import Process

from muxport._internal.errors import StartupError
from muxport._internal.farclient import FarClient
from muxport._internal.host import Host
from muxport._internal.invoke import Finished, invoke, reap, start
from muxport._internal.privatedirs import PrivateDirs
from muxport._internal.sshwords import RETRY, SshFailed, diagnose, far_quote

CONNECT_TIMEOUT = 15.0  # seconds a new master may take to authenticate
# ours first: ssh keeps the first value given for an option, and these make the design
FIXED = ("BatchMode=yes", "ControlPersist=no", "ExitOnForwardFailure=yes",
         "StreamLocalBindUnlink=yes", "ServerAliveInterval=10", "ServerAliveCountMax=3")
REFUSED_FOR = 2.0  # seconds a failed reconnection answers for, before one is tried again
# the masters' private directories: a killed muxport's is swept by the next one's ``connect``
DIRS = PrivateDirs("muxport-ssh-")


class SshHost(Host):
    """The master connection to one far host, and the forwarded socket of its tmux."""

    kind = "ssh"
    local = False  # the far host's pids, terminals and files
    forwarded = True  # the far socket, forwarded by the master: no descriptor crosses it

    def __init__(self, destination: str, options: Sequence[str] = ()) -> None:
        self.destination = destination
        self.options = tuple(options)
        self.remote_socket = ""  # the far server's socket path, set by ``connect``
        self.marker = f"muxport-{secrets.token_hex(8)}"  # ends what a far rc file printed
        self.known_version = ""  # what the far tmux -V printed at startup (past its marker)
        self.directory = ""  # the private 0700 directory of the control socket
        self.master: Process | None = None
        self.connections = 0  # masters started: 1 + the reconnections
        self._lock = anyio.Lock()
        self._failed: tuple[float, SshFailed] | None = None  # the last reconnection's error

    @property
    def name(self) -> str:
        return self.destination

    @property
    def control_path(self) -> str:
        return os.path.join(self.directory, "c")

    @property
    def forward_path(self) -> str:
        """The local end of the far server's socket (what the wire connects to)."""
        return os.path.join(self.directory, "t")

    def wire_socket(self, socket_path: str) -> str:
        return self.forward_path

    def _base(self) -> list[str]:
        opts = [f"ControlPath={self.control_path}", *FIXED, *self.options]
        return ["ssh", *(x for o in opts for x in ("-o", o))]

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run on the far host, as a session on the master. The far login shell
        may print first (its rc files, for every ssh command): the command's own output
        starts after a marker line (``own_output``; docs/ssh.md)."""
        far = " ".join(far_quote(a) for a in argv)
        return [*self._base(), "-o", "ControlMaster=no", "-T", self.destination, "--",
                f"printf '\\n%s\\n' {self.marker}; exec {far}"]

    def own_output(self, done: Finished) -> Finished:
        """``done`` without what the far login printed before the command ran."""
        _, found, rest = done.stdout.partition(b"\n" + self.marker.encode() + b"\n")
        return dataclasses.replace(done, stdout=rest) if found else done

    async def adopt(self, process: Process) -> Process:
        return await FarClient.past(process, self.marker)

    def report(self) -> dict[str, str]:
        """How the far server is reached (doctor, tmux://capabilities)."""
        return {"host": self.destination, "host_transport": (
            f"ssh: one OpenSSH master (control socket {self.control_path}, in a 0700 "
            f"directory); the far socket forwarded to {self.forward_path}; "
            f"masters started: {self.connections}")}

    def attach(self, command: str) -> str:
        return f"ssh -t {self.destination} {command}"

    def _listening(self) -> bool:
        return os.path.exists(self.control_path)  # one stat in a private directory

    def alive(self) -> bool:
        """The master runs and its forward listens (two reads, no process): a killed
        master is a zombie before the event loop reaps it, and its socket file stays."""
        master = self.master
        if master is None or master.returncode is not None:
            return False
        try:  # "pid (comm) state ...": our own child, so its pid is not reused meanwhile
            with open(f"/proc/{master.pid}/stat", "rb") as stat:
                state = stat.read().rpartition(b") ")[2][:1]
        except OSError:
            return False
        return state not in (b"Z", b"X", b"") and os.path.exists(self.forward_path)

    async def ensure(self) -> None:
        """A master with the forward up, starting a new one if the last one died."""
        if self.alive():
            return
        async with self._lock:
            if self.alive():
                return
            failed = self._failed
            if failed is not None and time.monotonic() - failed[0] < REFUSED_FOR:
                raise failed[1]  # callers queued behind a failed attempt do not repeat it
            try:
                await self._start_master(tool_error=True)
            except SshFailed as exc:
                self._failed = (time.monotonic(), exc)
                raise
            self._failed = None

    async def restart(self, seen: int) -> None:
        """A new master in place of master number ``seen``, whose forward refused (unless
        another call replaced it meanwhile)."""
        async with self._lock:
            if self.connections == seen:
                await self._start_master(tool_error=True)

    async def connect(self) -> None:
        """The first master (at startup: failures stop startup with the fix)."""
        await anyio.to_thread.run_sync(DIRS.sweep)  # killed muxports' directories
        self.directory = DIRS.make()  # 0700
        await self._start_master(tool_error=False)

    async def _start_master(self, tool_error: bool) -> None:
        await self._end_master()
        for path in (self.control_path, self.forward_path):  # a killed master's sockets
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        # The master's far command reads the pipe muxport holds: when muxport ends, however
        # it ends, the pipe closes, cat ends and the master with it (nothing left behind).
        argv = [*self._base(), "-o", "ControlMaster=yes", "-o", "ConnectTimeout=10", "-T",
                self.destination, "--", "cat"]
        master = await start(argv, "starting ssh", stdout=subprocess.DEVNULL)
        self.master = master
        err = bytearray()

        async def drain() -> None:
            assert master.stderr is not None
            async for chunk in master.stderr:
                err.extend(chunk)

        failed = ""
        async with anyio.create_task_group() as tg:
            tg.start_soon(drain)
            with anyio.move_on_after(CONNECT_TIMEOUT):
                # ssh tells nothing when it is ready but by binding its control socket
                while master.returncode is None and not self._listening():  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            if master.returncode is not None or not self._listening():
                with anyio.move_on_after(1):
                    await master.wait()
                failed = err.decode("utf-8", "replace") or "no answer in time"
            tg.cancel_scope.cancel()
        if failed:
            await reap(master)
            self.master = None
            self._fail(failed, tool_error)
        self.connections += 1
        if self.remote_socket:
            await self.forward(tool_error)

    async def forward(self, tool_error: bool = False) -> None:
        """Forward the far server's socket to ``forward_path`` on the master."""
        argv = [*self._base(), "-O", "forward", "-L",
                f"{self.forward_path}:{self.remote_socket}", self.destination]
        done = await invoke(argv, CONNECT_TIMEOUT)
        if done.returncode != 0:
            self._fail(done.stderr.decode("utf-8", "replace"), tool_error)

    def _fail(self, stderr: str, tool_error: bool) -> None:
        code, message = diagnose(stderr, self.destination)
        if tool_error:
            raise SshFailed(message, code=code, delivery="not_sent", retryable=code in RETRY)
        raise StartupError(message)

    async def run(self, argv: Sequence[str], deadline: float = CONNECT_TIMEOUT) -> Finished:
        """``argv`` on the far host, to completion."""
        return self.own_output(await invoke(self.command(argv), deadline))

    def check(self, returncode: int, stderr: str) -> None:
        """Raise the ssh error a failed invocation means, if ssh (not tmux) failed: the
        master died under it (the forward dropped the connection: tmux's "server exited
        unexpectedly"), or a forked ssh could not reach the far host (status 255)."""
        if not self.alive():
            raise self.lost()
        if returncode == 255 and stderr.strip():
            code, message = diagnose(stderr, self.destination)
            raise SshFailed(message, code=code, delivery="possibly_sent", retryable=code in RETRY)

    def lost(self, sent: bool = True) -> SshFailed:
        """The error of a call whose connection went away under it (``sent``: after the
        command may have reached the far server)."""
        if not sent:
            return SshFailed(f"the ssh connection to {self.destination} was lost before "
                             "anything was sent; call again (the next call connects anew)")
        return SshFailed(
            f"the ssh connection to {self.destination} was lost during the call; what was "
            "asked may or may not have happened there: check (list_sessions), then call "
            "again: the next call connects anew",
            delivery="possibly_sent",
        )

    async def close(self) -> None:
        """End the master (its forward with it) and remove the private directory."""
        try:
            await self._end_master()
        finally:
            if self.directory:
                shutil.rmtree(self.directory, ignore_errors=True)

    async def _end_master(self) -> None:
        """Kill and reap the master; its stdin pipe may be broken by then (EPIPE on close)."""
        master, self.master = self.master, None
        if master is not None:
            with contextlib.suppress(OSError):
                await reap(master)

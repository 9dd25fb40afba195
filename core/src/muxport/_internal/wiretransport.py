"""Which way a tmux command goes: over the socket (``wireclient``, the default) or a forked
``tmux`` (the fallback); docs/transport.md, "When the forked client is used instead", lists
when and why.
"""

from __future__ import annotations

import logging
import os

import anyio

from muxport._internal import facts, wire
from muxport._internal.invoke import DEADLINE, Finished
from muxport._internal.wireclient import Unreachable, WireClient
from muxport._internal.wirecontrol import ControlClient

log = logging.getLogger(__name__)

ENV = "MUXPORT_TRANSPORT"  # "fork": every command is a forked tmux client
FILE_COMMANDS = frozenset(
    {"source-file", "source", "load-buffer", "loadb", "save-buffer", "saveb"}
)


def command_names(args: list[str]) -> list[str]:
    """The command names of one invocation's argv (``;`` separates commands)."""
    names = [args[0]] if args else []
    names.extend(args[i + 1] for i, arg in enumerate(args[:-1]) if arg == ";")
    return names


class ForwardDown(Exception):
    """The local end of a far server's forwarded socket refused the connection: the ssh
    master that listened there is gone, and nothing was sent (docs/ssh.md)."""


class WireTransport:
    """tmux commands over the server's socket, or ``None`` where the fork must do it."""

    def __init__(self, socket_path: str, forwarded: bool = False) -> None:
        self.socket_path = socket_path  # where to connect: the server's, or its forward
        # a server on another host, its socket forwarded over ssh (docs/ssh.md): no
        # descriptor crosses the forward, so control clients are forked through ssh; a
        # connection the forward accepts but cannot carry on is "nothing to connect to"
        self.forwarded = forwarded
        self.identity: tuple[dict[str, str], str] | None = None  # see WireClient.identity
        self.enabled = os.environ.get(ENV, "").strip().lower() != "fork"
        self.speaks = True  # False once the server answered another protocol version
        self.fd_header: wire.FdHeader | None = None  # found by ``probe_fd_header``
        self.server_version = ""  # the running server's ``#{version}`` (set at connection)
        self._probing = anyio.Lock()
        self._null: int | None = None

    def forget_server(self) -> None:
        """What was learned of a server that is gone (a new one runs at the path, maybe
        another tmux: docs/reliability.md): its version, its protocol, its header."""
        self.server_version, self.speaks, self.fd_header = "", True, None

    def null_fd(self) -> int:
        """``/dev/null``, passed as stdin by the header probe (opened once)."""
        if self._null is None:
            self._null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        return self._null

    def usable(self, args: list[str]) -> bool:
        """Control mode (``-C``) and file commands stay with the forked client."""
        return (
            self.enabled
            and self.speaks
            and bool(args)
            and not args[0].startswith("-")
            and not FILE_COMMANDS.intersection(command_names(args))
        )

    async def start(self, args: list[str], deadline: float = DEADLINE) -> WireClient | None:
        """A connected client that has been sent ``args``; ``None``: use the fork.
        ``TimeoutError`` past ``deadline``: the server did not take the connection."""
        if not self.usable(args):
            return None
        try:
            last = wire.command(args)
        except wire.TooLong:
            return None  # the tmux binary says "command too long" itself
        try:
            with anyio.fail_after(deadline):
                client = await WireClient.connect(self.socket_path)
        except Unreachable:
            if self.forwarded:
                raise ForwardDown from None
            return None
        client.identity = self.identity
        try:
            # One write: identify, flags, done and the command (no descriptor to pass).
            await client.identify(wire.client_flags(os.environ), last)
        except OSError:
            client.lost()
        except BaseException:  # cancelled mid-write: nobody else would close it
            await client.aclose()
            raise
        return client

    async def probe_fd_header(self) -> wire.FdHeader | None:
        """How this server's imsg marks a passed descriptor (docs/transport.md, "Two imsg
        headers"), found once: a harmless ``start-server`` carrying a descriptor. A server
        of the other header drops it before running anything; but a 3.5a server also runs
        one in the newer spelling (it takes the descriptor as unmarked), so the newer is
        the answer only when the older failed twice around it. ``None``: no answer."""
        async with self._probing:
            if self.fd_header is None and self.speaks and not self.forwarded:
                flags, mark = wire.FdHeader.FLAGS, wire.FdHeader.MARK
                if await self._answers(flags):
                    self.fd_header = flags
                elif await self._answers(mark) and not await self._answers(flags):
                    self.fd_header = mark
            return self.fd_header

    async def _answers(self, header: wire.FdHeader) -> bool:
        try:
            with anyio.fail_after(DEADLINE):
                client = await WireClient.connect(self.socket_path)
                try:
                    await client.identify(wire.client_flags(os.environ),
                                          wire.command(["start-server"]), self.null_fd(), header)
                    status = await client.wait()
                except OSError:
                    status = 1
                finally:
                    await client.aclose()
        except Unreachable:
            return False
        if client.mismatch:
            self.speaks = False
        return status == 0 and not client.mismatch

    def report(self) -> dict[str, str]:
        """How commands and control clients reach the server, and why (doctor, capabilities)."""
        forced = "fork: MUXPORT_TRANSPORT=fork"
        other = "fork: the server answered another protocol version"
        commands = "socket" if self.enabled and self.speaks else forced if self.speaks else other
        if self.forwarded:
            commands += " (forwarded over ssh)" if commands == "socket" else ""
            control = ("fork: tmux -C over ssh" if self.may_fork_control() else
                       "none: a forked tmux -C could crash this server (before 3.7); "
                       "waits re-check on a timer")
        elif not self.enabled and self.may_fork_control():
            control = forced
        elif self.fd_header is not None:
            control = f"socket ({self.fd_header.value} descriptors)"
        elif self.speaks:
            control = "socket (descriptor header probed at the first wait)"
        elif self.may_fork_control():
            control = other
        else:
            control = ("none: a forked tmux -C could crash this server (before 3.7); "
                       "waits re-check on a timer")
        return {"commands": commands, "control_clients": control}

    def may_fork_control(self) -> bool:
        """Whether a forked ``tmux -C`` is safe: only on a server that skips control clients
        still attaching when it notifies (3.7 and newer; docs/tmux-facts.md)."""
        return facts.version_key(self.server_version) >= facts.CONTROL_NOTIFY_FIXED

    async def start_control(self, args: list[str]) -> ControlClient | None:
        """A control client over the socket; ``None``: fork it (``MUXPORT_TRANSPORT=fork``
        where that is safe, or where the socket cannot do it)."""
        if self.forwarded or (not self.enabled and self.may_fork_control()):
            return None
        header = await self.probe_fd_header()
        if header is None:
            return None
        try:
            with anyio.fail_after(DEADLINE):
                return await ControlClient.start(self.socket_path, args, header)
        except (Unreachable, wire.TooLong):
            return None

    async def run(self, args: list[str], deadline: float = DEADLINE) -> Finished | None:
        """Run one invocation; what it printed, or ``None``: use the fork.
        ``TimeoutError`` past ``deadline`` (a stopped or hung server)."""
        with anyio.fail_after(deadline):
            client = await self.start(args, deadline)
            if client is None:
                return None
            try:
                status = await client.wait()
            finally:
                await client.aclose()
        if self.forwarded and not client.heard:
            return None  # the far socket is not there: the forked client over ssh decides
        if client.mismatch:
            log.warning("the tmux server speaks another protocol than %s: forking tmux clients",
                        wire.PROTOCOL_VERSION)
            self.speaks = False
            return None
        return Finished(status, bytes(client.out), bytes(client.err))

    def close(self) -> None:
        if self._null is not None:
            os.close(self._null)
            self._null = None

"""Clients that outlive one invocation: ``wait-for`` waiters and control-mode feeds
(docs/transport.md, "Long-lived clients"), as a part of ``transport.Transport``."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
from anyio.abc import Process

from muxport._internal import hookguard, invoke
from muxport._internal.facts import TmuxResult, refuse_nul
from muxport._internal.farclient import FarClient
from muxport._internal.invoke import DEADLINE
from muxport._internal.liveness import Liveness
from muxport._internal.sshhost import SshHost
from muxport._internal.wiretransport import ForwardDown, WireTransport


class LongLivedClients:
    """Starting, stopping and waking the clients a ``Transport`` keeps."""

    binary: str
    socket_path: str
    host: SshHost | None
    wire: WireTransport
    liveness: Liveness
    _clients: set[Process]
    _starting: anyio.Lock

    def argv(self, *commands: Sequence[str]) -> list[str]:
        raise NotImplementedError

    def forked(self, argv: list[str]) -> list[str]:
        raise NotImplementedError

    async def _guard(self, wanted: hookguard.Wanted) -> None:
        raise NotImplementedError

    async def _invoke(self, commands: Sequence[Sequence[str]], deadline: float = DEADLINE,
                      start: bool = True) -> TmuxResult:
        raise NotImplementedError

    async def send_batched(self, *command: str) -> bool:
        raise NotImplementedError

    async def start_client(self, *args: str) -> Process:
        """Start a long-lived tmux client (``wait-for``, control mode); reaped at shutdown."""
        await self._guard(hookguard.Wanted.of_client(args))
        control = args[:1] == ("-C",)
        try:  # over the socket where it can go (docs/transport.md)
            client: Process | None = await (
                self.wire.start_control(refuse_nul(list(args[1:]))) if control
                else self.wire.start(refuse_nul(list(args)))
            )
        except TimeoutError:
            raise self.liveness.stall() from None
        except ForwardDown:  # a far server's master died after the check (docs/ssh.md)
            assert self.host is not None
            raise self.host.lost(sent=False) from None
        if client is None and control and self.wire.forwarded and not self.wire.server_version:
            await self._read_version()  # a server started after muxport connected
        if client is None and control and not self.wire.may_fork_control():
            raise RuntimeError(f"a forked control client could crash tmux "
                               f"{self.wire.server_version or '(unknown version)'}")
        if client is None and self.host is not None and not self.host.alive():
            raise self.host.lost(sent=False)  # a forked ssh would connect on its own
        if client is None:  # -N: attach-session too would start a server (a moved socket)
            async with self._starting:
                argv = refuse_nul([self.binary, "-N", "-S", self.socket_path, *args])
                client = await invoke.start(self.forked(argv), "starting a tmux client")
            if self.host is not None:  # its output past what the far login printed
                forked = client
                self._clients.add(forked)  # reaped at shutdown, even if cut short here
                try:
                    client = await FarClient.past(forked, self.host.marker)
                except BaseException:  # a cancelled call: nobody else would end it
                    await self.stop_client(forked)  # shielded
                    raise
                self._clients.discard(forked)
        self._clients.add(client)
        return client

    async def _read_version(self) -> None:
        found = await self._invoke((("display-message", "-p", "#{version}"),), start=False)
        if found.returncode == 0:
            self.wire.server_version = found.stdout.strip()

    async def stop_client(self, process: Process) -> None:
        """End a client started by ``start_client``; safe to call twice and under cancellation."""
        self._clients.discard(process)
        await invoke.reap(process)  # shielded

    async def start_waiter(
        self, channel: str, *before: Sequence[str], after: Sequence[Sequence[str]] = ()
    ) -> Process:
        """A ``wait-for`` client on ``channel``; ``before`` and ``after`` run in the same
        invocation around it. End it with ``wake_waiter`` (or ``stop_client``)."""
        argv = self.argv(*before, ("wait-for", "--", channel), *after)
        return await self.start_client(*argv[3:])

    async def wake_waiter(self, channel: str, process: Process, grace: float = 2.0) -> None:
        """End a ``wait-for`` client by signalling its channel (batched), then reap it; never
        only killed: a killed waiter stays registered (docs/tmux-facts.md). Shielded."""
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                with anyio.move_on_after(grace):
                    if await self.send_batched("wait-for", "-S", "--", channel):
                        await process.wait()
            await self.stop_client(process)

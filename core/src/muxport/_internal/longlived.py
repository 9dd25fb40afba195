"""Clients that outlive one invocation: ``wait-for`` waiters and control-mode feeds
(docs/transport.md, "Long-lived clients"), as a part of ``transport.Transport``."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import anyio
from anyio.abc import Process

from muxport._internal import hookguard, invoke
from muxport._internal.errors import ToolError
from muxport._internal.facts import TmuxResult, refuse_nul
from muxport._internal.host import Host
from muxport._internal.invoke import DEADLINE
from muxport._internal.liveness import Liveness
from muxport._internal.sharing import Batch
from muxport._internal.wiretransport import ForwardDown, WireTransport

log = logging.getLogger(__name__)


class LongLivedClients:
    """Starting, stopping and waking the clients a ``Transport`` keeps."""

    binary: str
    socket_path: str
    host: Host
    wire: WireTransport
    liveness: Liveness
    _batch: Batch
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
        """Run one command whose output nobody reads, batched with others sent at the same
        moment into ONE invocation (``wait-for -S`` when many waits time out together).

        Best effort, for cleanup paths: a failure (a stopped or vanished server) is logged,
        never raised (False is returned), so that the cleanup after it still runs."""
        try:
            await self._batch.send(command)
        except (ToolError, OSError) as exc:
            log.info("batched %s failed: %s", command[0], exc)
            return False
        return True

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
            raise self.host.lost(sent=False) from None
        if client is None and control and self.wire.forwarded and not self.wire.server_version:
            await self._read_version()  # a server started after muxport connected
        if client is None and control and not self.wire.may_fork_control():
            raise RuntimeError(f"a forked control client could crash tmux "
                               f"{self.wire.server_version or '(unknown version)'}")
        if client is None and not self.host.alive():
            raise self.host.lost(sent=False)  # a forked ssh would connect on its own
        if client is None:  # -N: attach-session too would start a server (a moved socket)
            async with self._starting:
                argv = refuse_nul([self.binary, "-N", "-S", self.socket_path, *args])
                forked = await invoke.start(self.forked(argv), "starting a tmux client")
            self._clients.add(forked)  # reaped at shutdown, even if cut short here
            try:  # its output past what a far login printed (docs/ssh.md)
                client = await self.host.adopt(forked)
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

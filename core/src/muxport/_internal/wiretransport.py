"""Which way a tmux command goes: over the socket (``wireclient``, the default) or a forked
``tmux`` (the fallback); docs/transport.md, "When the forked client is used instead", lists
when and why.
"""

from __future__ import annotations

import logging
import os

import anyio

from muxport._internal import wire
from muxport._internal.invoke import DEADLINE, Finished
from muxport._internal.wireclient import Unreachable, WireClient

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


class WireTransport:
    """tmux commands over the server's socket, or ``None`` where the fork must do it."""

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        self.enabled = os.environ.get(ENV, "").strip().lower() != "fork"
        self._null: int | None = None

    def null_fd(self) -> int:
        """``/dev/null``, passed as the client's stdin and stdout (opened once)."""
        if self._null is None:
            self._null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        return self._null

    def usable(self, args: list[str]) -> bool:
        """Control mode (``-C``) and file commands stay with the forked client."""
        return (
            self.enabled
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
            with anyio.fail_after(deadline):
                client = await WireClient.connect(self.socket_path, self.null_fd())
        except Unreachable:
            return None
        try:
            await client.send(wire.command(args))
        except wire.TooLong:
            await client.aclose()
            return None  # the tmux binary says "command too long" itself
        except OSError:
            client.lost()
        return client

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
        if client.mismatch:
            log.warning("the tmux server speaks another protocol than %s: forking tmux clients",
                        wire.PROTOCOL_VERSION)
            self.enabled = False
            return None
        return Finished(status, bytes(client.out), bytes(client.err))

    def close(self) -> None:
        if self._null is not None:
            os.close(self._null)
            self._null = None

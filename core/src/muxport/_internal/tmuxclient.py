"""What a toolset may ask of tmux: the ``Tmux`` protocol, the type of ``ctx.tmux`` and of
``Toolbox.start``'s argument (docs/plugin-contract.md, "The tmux client").

The core's ``transport.Transport`` is its one implementation. A toolset sees only this
part of it: running commands within their deadline, reading what a failure means, and
the clients that outlive one invocation. Starting the server, closing the transport and
batching cleanup sends are the core's, not a toolset's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from anyio.abc import Process

from muxport._internal.errors import NotFound, ServerGone, TmuxFailed
from muxport._internal.facts import TmuxResult
from muxport._internal.host import Host
from muxport._internal.invoke import DEADLINE


class Tmux(Protocol):
    """The served tmux server, as a toolset reaches it."""

    @property
    def binary(self) -> str:
        """The tmux binary every invocation runs, resolved once at startup: for a command
        that runs tmux itself inside a pane (a frame that reports back through tmux)."""
        ...

    @property
    def socket_path(self) -> str:
        """The served server's socket path (``tmux -S``), as every invocation names it."""
        ...

    @property
    def host(self) -> Host:
        """Where the served server runs (docs/transport.md, "Hosts"). ``host.local``
        false (``--ssh``): its panes' pids, terminals, files and ``/proc`` are that host's,
        not this machine's, and ``binary`` and ``socket_path`` name paths there; look at
        them through tmux, never here. ``host.name`` names it in messages, ``host.kind``
        says what reaches it (``local``, ``ssh``)."""
        ...

    async def run(
        self, *commands: Sequence[str], check: bool = True, deadline: float = DEADLINE
    ) -> TmuxResult:
        """Run ``commands`` in ONE tmux invocation (one moment), values as argv items; with
        ``check``, a failure raises the tool error it means. Past ``deadline`` seconds the
        call answers ``tmux_unresponsive``."""
        ...

    async def read(self, *commands: Sequence[str], check: bool = True) -> TmuxResult:
        """Like ``run``, for read-only commands on a hot path (waits): identical reads asked
        for at the same time share ONE invocation that starts after each of them asked."""
        ...

    def failure(self, result: TmuxResult) -> ServerGone | TmuxFailed | NotFound:
        """The tool error a failed invocation (``check=False``) means."""
        ...

    async def missing(self, kind: str, target: str) -> NotFound:
        """The not-found error for ``target`` (a ``pane``, ``window`` or ``session``), with
        how many of its kind exist."""
        ...

    async def start_client(self, *args: str) -> Process:
        """Start a long-lived tmux client (``wait-for``, control mode with ``-C``), reaped at
        shutdown if it is not stopped before."""
        ...

    async def stop_client(self, process: Process) -> None:
        """End a client ``start_client`` or ``start_waiter`` started; safe to call twice and
        under cancellation."""
        ...

    async def start_waiter(
        self, channel: str, *before: Sequence[str], after: Sequence[Sequence[str]] = ()
    ) -> Process:
        """A ``wait-for`` client on ``channel``; ``before`` and ``after`` run in the same
        invocation around it. End it with ``wake_waiter`` (or ``stop_client``)."""
        ...

    async def wake_waiter(self, channel: str, process: Process, grace: float = 2.0) -> None:
        """End a ``wait-for`` client by signalling its channel, then reap it (a killed
        waiter would stay registered in tmux). Shielded from cancellation."""
        ...

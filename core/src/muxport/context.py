"""What a tool function receives besides its arguments: ``ToolContext``.

It carries the transport, the caller relation, progress reporting, server-lifetime
state and background tasks, and (for the read batch) the nested tools it may call.
Cancellation needs no helper: a cancelled request raises at the tool's next
``await``; clean up in ``finally``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup
from pydantic import BaseModel

from muxport.budgets import PROGRESS_EVERY
from muxport.caller import Caller
from muxport.declare import ToolSpec
from muxport.transport import Tmux

log = logging.getLogger(__name__)
ProgressSink = Callable[[float, float | None, str | None], Awaitable[None]]
T = TypeVar("T")


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


@dataclass
class Services:
    """Per-server state shared by every call: selection, toolset state, background work."""

    tmux: Tmux
    caller: Caller
    selected: frozenset[str] = frozenset()
    specs: Mapping[str, ToolSpec] = field(default_factory=dict)
    nested: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    task_group: TaskGroup | None = None
    shutdown: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


@dataclass
class ToolContext:
    """The context of one tool call."""

    tool: str
    services: Services
    progress_sink: ProgressSink = _no_progress

    @property
    def tmux(self) -> Tmux:
        return self.services.tmux

    @property
    def caller(self) -> Caller:
        return self.services.caller

    def is_selected(self, name: str) -> bool:
        """Whether ``name`` is callable on this server (listed, or granted to this tool)."""
        return name in self.services.selected or name in self.nested_tools

    @property
    def nested_tools(self) -> tuple[str, ...]:
        """The tools this tool may call through ``call_nested`` (its pruned authority)."""
        return self.services.nested.get(self.tool, ())

    async def call_nested(self, name: str, args: BaseModel) -> BaseModel:
        """Run a tool of this tool's nested authority with already validated arguments."""
        if name not in self.nested_tools:
            raise PermissionError(name)
        spec = self.services.specs[name]
        return await spec.func(ToolContext(name, self.services, self.progress_sink), args)

    def state(self, key: str, factory: Callable[[], T]) -> T:
        """A server-lifetime object for a toolset (run tables, signing keys), made once."""
        if key not in self.services.state:
            self.services.state[key] = factory()
        value: T = self.services.state[key]
        return value

    def spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``func`` in the background for the server's lifetime (cancelled at EOF)."""
        if self.services.task_group is None:
            raise RuntimeError("no background task group: the server is not running")

        async def guarded() -> None:
            # A fault inside background work ends that work, never the server.
            try:
                await func()
            except Exception:
                log.exception("background work of %s failed", self.tool)

        self.services.task_group.start_soon(guarded)

    def on_shutdown(self, func: Callable[[], Awaitable[None]]) -> None:
        """Call ``func`` when the server shuts down (remove private files, stop clients)."""
        self.services.shutdown.append(func)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """A progress notification; nothing is sent when the client gave no token."""
        await self.progress_sink(progress, total, message)

    @asynccontextmanager
    async def heartbeat(
        self, message: Callable[[float], str], every: float = PROGRESS_EVERY
    ) -> AsyncIterator[None]:
        """Send progress every ``every`` seconds while the body waits (DESIGN §7: at least 5 s).

        Each beat also checks that tmux still answers: a stopped server ends the wait with
        ``tmux_unresponsive`` (raised from this block) instead of holding it forever."""
        start = time.monotonic()

        async def beat() -> None:
            while True:
                await anyio.sleep(every)
                await self.tmux.responsive()
                elapsed = time.monotonic() - start
                await self.report_progress(elapsed, None, message(elapsed))

        async with anyio.create_task_group() as group:
            group.start_soon(beat)
            try:
                yield
            finally:
                group.cancel_scope.cancel()

"""What a tool function receives besides its arguments: ``ToolContext``.

It carries the transport, the caller relation, progress reporting and background
tasks, and (for the read batch) the nested tools it may call. State that lives as
long as the server belongs to a ``Toolbox`` (docs/plugin-contract.md).
Cancellation needs no helper: a cancelled request raises at the tool's next
``await``; clean up in ``finally``.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskGroup
from pydantic import BaseModel

from muxport._internal import asking, asking_secret
from muxport._internal.answers import AnswerBudget, answer_budget, answering
from muxport._internal.budgets import PROGRESS_EVERY
from muxport._internal.caller import Caller
from muxport._internal.declare import Toolbox, ToolSpec
from muxport._internal.errors import Refused, StartupError
from muxport._internal.hookguard import GUARDED, guarding
from muxport._internal.secret_page import Secret
from muxport._internal.shutdown import Shutdown
from muxport._internal.tmuxclient import Tmux
from muxport._internal.transport import Transport
from muxport._internal.watch import Activity, Feeds

# A tool as the server calls it: a method already bound to its toolbox (``Services.func``).
ToolFunc = Callable[["ToolContext", Any], Awaitable[BaseModel]]
ProgressSink = Callable[[float, float | None, str | None], Awaitable[None]]
log = logging.getLogger(__name__)


async def _no_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


@dataclass
class Services:
    """Per-server state shared by every call: selection, toolboxes, feeds, background work."""

    tmux: Transport
    caller: Caller
    selected: frozenset[str] = frozenset()
    specs: Mapping[str, ToolSpec] = field(default_factory=dict)
    nested: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    task_group: TaskGroup | None = None
    feeds: Feeds = field(default_factory=Feeds)
    toolboxes: dict[type[Toolbox], Toolbox] = field(default_factory=dict)
    shutdown: Shutdown = field(default_factory=Shutdown)

    async def start(self) -> None:
        """Make and start, once, the toolbox of every callable tool that is a method.

        A toolbox that cannot be made or started stops startup (``StartupError``, one line
        naming the toolset and the error, no traceback); what was started is closed first."""
        callable_ = self.selected.union(*self.nested.values())
        for name in sorted(callable_ & set(self.specs)):
            box = self.specs[name].toolbox
            if box is None or box in self.toolboxes:
                continue
            try:
                self.toolboxes[box] = box()
                await self.toolboxes[box].start(self.tmux)
            except Exception as exc:
                await self.aclose()
                said = (str(exc).splitlines() or [""])[0]
                raise StartupError(
                    f"toolset {self.specs[name].toolset} could not start "
                    f"({box.__name__}: {type(exc).__name__}{': ' + said if said else ''}); "
                    "fix what it names, or leave the toolset out of the selection"
                ) from None

    def func(self, name: str) -> ToolFunc:
        """The callable ``(ctx, args)`` of tool ``name`` (a method bound to its toolbox)."""
        spec = self.specs[name]
        box = spec.toolbox
        return spec.func if box is None else functools.partial(spec.func, self.toolboxes[box])

    async def aclose(self) -> None:
        """Shutdown: close the toolboxes (newest first), the feeds, then every tmux client."""
        for box in reversed(self.toolboxes.values()):
            try:
                await box.aclose()
            except Exception:
                log.exception("closing toolbox %s failed", type(box).__name__)
        await self.feeds.close(self.tmux)
        await self.tmux.aclose()


@dataclass
class ToolContext:
    """The context of one tool call: its public methods and properties are the contract
    (docs/plugin-contract.md); the per-server state behind them is the core's."""

    tool: str
    _services: Services
    _progress: ProgressSink = _no_progress
    _cut_short: bool = field(default=False, init=False)  # a heartbeat ended its body at exit

    @property
    def tmux(self) -> Tmux:
        """The served tmux server (the ``Tmux`` protocol)."""
        return self._services.tmux

    @property
    def caller(self) -> Caller:
        """Where muxport itself runs (inside a pane of this server, or not)."""
        return self._services.caller

    @property
    def closing(self) -> bool:
        """Whether the client closed muxport's input: the server answers what it has read,
        cuts the waits short after a grace, and exits (nothing started can be collected
        later by an id of this server)."""
        return self._services.shutdown.input_closed

    @property
    def answer_budget(self) -> AnswerBudget | None:
        """The answer budget of the call being answered (None in background work):
        ``limits.keep_newest`` spends it; a batch shares it among its reads."""
        return answer_budget()

    def watch(self, pane_id: str, session_id: str) -> AbstractAsyncContextManager[Activity]:
        """``async with ctx.watch(pane_id, session_id) as activity``: ``await
        activity.wait(seconds)`` is true when the pane stirred (docs/runs-and-waits.md);
        take the baseline capture inside the block."""
        return watcher(self, pane_id, session_id)

    async def ask_person(self, refused: Refused, question: str, about: str = "") -> None:
        """Ask the person to lift ``refused`` (docs/asking.md): return on accept; raise it
        as is when the client cannot be asked, else ``declined_by_user`` or
        ``unanswered_by_user``. ``question`` names exactly what would happen."""
        await asking.ask_person(refused, question, about)

    async def ask_secret(self, refused: Refused, question: str, prompt: str,
                         about: str = "") -> Secret:
        """A secret the person typed on a one-time local page (URL mode only, never through
        the model: docs/asking.md); ``Secret.drop`` it once used."""
        return await asking_secret.ask_secret(refused, question, prompt, about)

    def input_sent(self) -> None:
        """Input reached a pane: a later question of this call must not replay it."""
        asking.input_sent()

    def is_selected(self, name: str) -> bool:
        """Whether ``name`` is callable on this server (listed, or granted to this tool)."""
        return name in self._services.selected or name in self.nested_tools

    @property
    def nested_tools(self) -> tuple[str, ...]:
        """The tools this tool may call through ``call_nested`` (its pruned authority)."""
        return self._services.nested.get(self.tool, ())

    def nested_spec(self, name: str) -> ToolSpec:
        """The declaration of a tool of this tool's nested authority (PermissionError if not)."""
        if name not in self.nested_tools:
            raise PermissionError(name)
        return self._services.specs[name]

    async def call_nested(self, name: str, args: BaseModel) -> BaseModel:
        """Run a tool of this tool's nested authority with already validated arguments."""
        self.nested_spec(name)  # PermissionError outside it
        call = self._services.func(name)
        # a guarded read's nested reads are guarded under their own name
        with guarding(name if GUARDED.get() is not None else None):
            return await call(ToolContext(name, self._services, self._progress), args)

    def spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``func`` in the background for the server's lifetime (cancelled at EOF)."""
        if self._services.task_group is None:
            raise RuntimeError("no background task group: the server is not running")

        async def guarded() -> None:
            # A fault inside background work ends that work, never the server; it answers
            # nobody, so the budget of the call that started it is not its own.
            try:
                with answering(None):
                    await func()
            except Exception:
                log.exception("background work of %s failed", self.tool)

        self._services.task_group.start_soon(guarded)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """A progress notification; nothing is sent when the client gave no token."""
        await self._progress(progress, total, message)

    async def wait_progress(
        self, what: str, total: float, elapsed: float, state: str = ""
    ) -> None:
        """A wait's progress: ``total`` is its effective timeout, the message the one format
        every wait uses ("waiting for channel x: 4 s of 30 s", "(armed)" and the like)."""
        told = f"waiting for {what}: {elapsed:.0f} s of {total:g} s"
        await self.report_progress(elapsed, total, f"{told} ({state})" if state else told)

    @asynccontextmanager
    async def heartbeat(
        self, what: str, total: float, every: float = PROGRESS_EVERY
    ) -> AsyncIterator[None]:
        """Send a wait's progress every ``every`` seconds while the body waits (at least
        every 5 s: clients that reset their timeout on progress keep the call alive;
        docs/runs-and-waits.md).

        Each beat also checks that tmux still answers: a stopped server ends the wait with
        ``tmux_unresponsive`` (raised from this block) instead of holding it forever; a
        stall noticed by any other call ends the wait at once, not at its next beat.

        When the server ends (the grace after EOF is over) the body is cancelled and the
        block exits normally, as a timeout would: the code after it answers with what the
        wait saw (docs/plugin-contract.md, "Waits")."""
        start = time.monotonic()
        cut = self._services.shutdown.cut

        async def beat() -> None:
            while True:
                with anyio.move_on_after(every):
                    await self._services.tmux.stall_seen()
                await self._services.tmux.responsive()
                await self.wait_progress(what, total, time.monotonic() - start)

        async def end() -> None:
            await cut.wait()
            self._cut_short = True
            group.cancel_scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(beat)
            group.start_soon(end)
            try:
                yield
            finally:
                group.cancel_scope.cancel()


@asynccontextmanager
async def watcher(ctx: ToolContext, pane_id: str, session_id: str) -> AsyncIterator[Activity]:
    """Watch ``pane_id`` (in ``session_id``) for output until the block ends, on the
    server's activity feeds (``watch.Feeds``).

    Take the baseline capture INSIDE the block: the feed is attached by then, so any
    output after the baseline rings ``activity``.
    """
    services = ctx._services
    activity = Activity(services.feeds, pane_id, services.tmux)
    try:
        await services.feeds.join(ctx, activity, session_id)
        yield activity
    finally:
        await services.feeds.leave(services.tmux, activity)

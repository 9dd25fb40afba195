"""Pane activity events from tmux control mode, so that waits wake on new output
(docs/runs-and-waits.md, "Waking"; what tmux sends a control client: docs/tmux-facts.md).

``Feeds`` keeps ONE read-only, size-ignoring control client per session that has waiters
(a ``feed.Feed``), shared by all of them; a waiter is woken on its pane's output and
whenever the feed sees something that may mean the pane went away, and re-checks tmux
itself on waking. A tool waits through ``context.watcher``:

    async with watcher(ctx, pane_id, session_id) as activity:
        while ...:
            await activity.wait(timeout)   # True: the pane (or its feed) stirred

The feeds are the server's state (``context.Services`` holds them), so this module knows a
tool call only as a ``Call``: what the feeds use of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import anyio

from muxport._internal.feed import READY_TIMEOUT, Feed, stop_feed
from muxport._internal.tmuxclient import Tmux
from muxport._internal.transport import Transport

log = logging.getLogger(__name__)

RECHECK_BASE = 1.0
# Waiters per base interval before the safety re-checks are spread out further:
# 200 waiters re-capturing every second would be 200 tmux processes a second.
RECHECKS_PER_SECOND = 25
# Without a feed (a far server before 3.7: docs/ssh.md) re-checks are the only signal:
# every POLL_BASE seconds, spread out past POLLS_PER_SECOND captures a second in all.
POLL_BASE = 0.02
POLLS_PER_SECOND = 50


class Call(Protocol):
    """What the feeds use of the tool call that starts one (a ``ToolContext``): the served
    server, and the server's background tasks, where the feed's reader runs."""

    @property
    def tmux(self) -> Tmux: ...

    def spawn(self, func: Callable[[], Coroutine[Any, Any, None]]) -> None: ...


class Activity:
    """One waiter's doorbell for one pane; ``wait`` returns when it rang or on timeout."""

    def __init__(self, registry: Feeds, pane_id: str, tmux: Transport) -> None:
        self.registry = registry
        self.pane_id = pane_id
        self.tmux = tmux  # the served server's transport, which stops a feed
        self.session_id = ""
        self.feed: Feed | None = None
        self._event = anyio.Event()

    def ring(self) -> None:
        self._event.set()

    def recheck_interval(self) -> float:
        """Seconds until this waiter should re-check tmux even without an event."""
        return self.registry.recheck_interval(self.feed is None or not self.feed.polls)

    async def wait(self, seconds: float) -> bool:
        """Wait until the pane produced output (or may be gone), at most ``seconds``."""
        with anyio.move_on_after(max(0.0, seconds)):
            await self._event.wait()
        rang = self._event.is_set()  # only ring() sets it, only this wait replaces it
        if rang:
            self._event = anyio.Event()
        return rang

    async def rebind(self, ctx: Call, session_id: str) -> None:
        """Follow the pane to ``session_id`` (moved window, or the old feed died)."""
        if session_id == self.session_id and self.feed is not None and self.feed.alive:
            return
        await self.registry.leave(self.tmux, self)
        await self.registry.join(ctx, self, session_id)


class Feeds:
    """The feeds of one served tmux server, keyed by session id."""

    def __init__(self) -> None:
        self.feeds: dict[str, Feed] = {}
        self.lock = anyio.Lock()

    def recheck_interval(self, fed: bool = True) -> float:
        """Seconds between safety re-checks of one waiter, spread out as waiters multiply;
        a waiter without a feed (``fed`` false) polls, as often as the polling allows."""
        waiters = sum(sum(map(len, feed.watchers.values())) for feed in self.feeds.values())
        if not fed:
            return max(POLL_BASE, waiters / POLLS_PER_SECOND)
        return RECHECK_BASE * max(1.0, waiters / RECHECKS_PER_SECOND)

    async def join(self, ctx: Call, activity: Activity, session_id: str) -> None:
        """Register ``activity`` on the session's feed, starting the feed if needed."""
        activity.session_id = session_id
        # Shielded: a cancellation between starting a client and recording its first
        # waiter would leave a client nobody stops.
        with anyio.CancelScope(shield=True):
            async with self.lock:
                feed = self.feeds.get(session_id)
                if feed is None or not feed.alive:
                    feed = Feed(session_id)
                    self.feeds[session_id] = feed
                    await self._start(ctx, feed)
                    # Attached under the lock: one feed at a time per session is all the
                    # ordering left (the pre-3.7 crash is closed by wirecontrol.py).
                    with anyio.move_on_after(READY_TIMEOUT):
                        await feed.ready.wait()
                feed.watchers.setdefault(activity.pane_id, set()).add(activity)
                activity.feed = feed
        # Output printed before the client is attached would not be announced: the
        # caller takes its baseline after this returns.
        joined = activity.feed
        if joined is not None:
            with anyio.move_on_after(READY_TIMEOUT):
                await joined.ready.wait()

    async def _start(self, ctx: Call, feed: Feed) -> None:
        try:
            feed.process = await ctx.tmux.start_client(
                "-C", "attach-session", "-E", "-t", feed.session_id, "-f", "read-only,ignore-size"
            )
            ctx.spawn(feed.read)
        except (OSError, RuntimeError) as exc:
            # No feed: waiters fall back to their re-checks (expected, RuntimeError, for a
            # server where a forked control client is unsafe: docs/ssh.md)
            far = not ctx.tmux.host.local
            (log.info if far else log.warning)(
                "no control-mode feed for %s: %s", feed.session_id, exc)
            feed.polls = far
            if feed.process is not None:
                await ctx.tmux.stop_client(feed.process)
            feed.alive = False
            feed.ready.set()

    async def leave(self, tmux: Transport, activity: Activity) -> None:
        """Unregister ``activity``; the last waiter of a session stops its control client."""
        with anyio.CancelScope(shield=True):
            async with self.lock:
                feed, activity.feed = activity.feed, None
                if feed is None:
                    return
                group = feed.watchers.get(activity.pane_id, set())
                group.discard(activity)
                if not group:
                    feed.watchers.pop(activity.pane_id, None)
                if not feed.watchers:
                    if self.feeds.get(feed.session_id) is feed:
                        del self.feeds[feed.session_id]
                    await stop_feed(tmux, feed)  # under the lock too: see join

    async def close(self, tmux: Transport) -> None:
        """Stop every control client (server shutdown)."""
        feeds, self.feeds = list(self.feeds.values()), {}
        for feed in feeds:
            await stop_feed(tmux, feed)


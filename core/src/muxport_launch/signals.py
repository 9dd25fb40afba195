"""SIGINT and SIGTERM while there is nothing to undo: exit at once with 128 + the signal
(docs/reliability.md, "Ending"). The launcher sets this first, before anything loads; the
core's ``Shutdown.watch`` sets it again once serving has closed what it made. It lives here,
below both, so the core never imports the launcher's ``main``, which imports the core.

Only ``_signal`` and ``os``: ``signal`` imports ``enum`` (and half of ``collections``), and
the handlers are to be in place before that much can run with Python's own handler."""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # no stub: the C half of signal
import os

__all__ = ["exit_at_once", "exit_at_once_on_signals"]


def exit_at_once(signum: int, frame: object) -> None:
    """SIGINT or SIGTERM while loading or once everything is closed: no tmux process, no
    private file to undo, so the exit is at once, 128 + the signal, with no traceback."""
    os._exit(128 + signum)


def exit_at_once_on_signals() -> None:
    for signum in (_signal.SIGINT, _signal.SIGTERM):
        _signal.signal(signum, exit_at_once)

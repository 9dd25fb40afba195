"""Following a typed run (frames/typed_text.py; prepared by frames/typed.py): its
completion, and every other end, from the pane's output.

Nothing on the far side can signal muxport, so the pane's output is the only channel:
the watcher wakes on the pane's control-mode output events (``muxport.watch``; a missed
event costs at most its re-check interval), captures, and looks for the markers. The
end marker carries the status. A run whose start marker has not appeared within
``START_BOUND`` seconds of typing ends ``not_started`` (the pane is released).

Other ends (lost, stopped) are decided by typed_end.py from the same observations; a
fault is raised to the run's driver, which ends the run ``error``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from muxport import TmuxUnresponsive, ToolContext, ToolError

from muxport_execute.frames.base import extract, resumed_note
from muxport_execute.frames.strategy import Emit, Ending
from muxport_execute.frames.typed_end import far_end, job_state, shown
from muxport_execute.frames.typed_text import TypedFrame
from muxport_execute.host.input_wait import View
from muxport_execute.notes import gone_note, missing_start, typed_not_started
from muxport_execute.pane.view import Observation, observe

START_BOUND = 5.0
LOOK_GAP = 0.01  # at most one capture per LOOK_GAP while output streams
STALLED_STEP = 0.5  # between looks while tmux does not answer
T = TypeVar("T")


@dataclass
class TypedWatch:
    """One typed run's watcher: what was typed, where, and when."""

    ctx: ToolContext
    pane_id: str
    run_id: str
    pane_pid: str
    session_id: str
    frame: TypedFrame
    carrier: str  # the carrier in the foreground when typed ("": the far shell was)
    view: View | None
    began: float  # time.monotonic() when typed


async def look_until(
    ctx: ToolContext,
    pane_id: str,
    pane_pid: str,
    session_id: str,
    found: Callable[[Observation], T | None],
    bound: float | None,
) -> tuple[T | None, Observation]:
    """Capture the pane on each of its output events until ``found`` answers, the pane
    is gone, or ``bound`` seconds pass (None: no bound)."""
    deadline = None if bound is None else anyio.current_time() + bound
    async with ctx.watch(pane_id, session_id) as activity:
        while True:
            try:
                seen = await observe(ctx.tmux, pane_id, pane_pid)
            except TmuxUnresponsive:  # stopped or hung: a follow looks again once it answers
                if deadline is not None:
                    raise
                await anyio.sleep(STALLED_STEP)
                continue
            answer = found(seen) if seen.state == "alive" else None
            now = anyio.current_time()
            if answer is not None or seen.state != "alive":
                return answer, seen
            if deadline is not None and now >= deadline:
                return None, seen
            await anyio.sleep(LOOK_GAP)
            wait = activity.recheck_interval()
            if deadline is not None:
                wait = min(wait, deadline - anyio.current_time())
            await activity.wait(wait)


async def type_line(ctx: ToolContext, pane_id: str, line: str) -> None:
    try:
        await ctx.tmux.run(("send-keys", "-t", pane_id, "-l", "--", line + "\r"))
    except ToolError as error:
        error.delivery = "possibly_sent"
        raise


async def follow(w: TypedWatch, emit: Emit) -> Ending:
    """Look at the pane on each of its output events until the run ends."""
    started = stopped = was_stopped = False

    def progress(seen: Observation) -> Ending | bool | None:
        nonlocal started, stopped, was_stopped
        found = extract(w.frame, seen.lines)
        if found.started and not started:
            started = True
            emit("started")
        if found.ended:
            return True
        ending = far_end(w.pane_id, w.carrier, w.view, w.frame, started, seen)
        if ending is not None:
            return ending
        job = job_state(w.frame, seen.lines) if started else None
        if job in ("stopped", "running") and stopped != (job == "stopped"):
            stopped = job == "stopped"
            was_stopped = was_stopped or stopped
            emit("stopped" if stopped else "resumed")
        if not started and time.monotonic() - w.began > START_BOUND:
            return False
        return None

    ended, seen = await look_until(w.ctx, w.pane_id, w.pane_pid, w.session_id, progress, None)
    if seen.state == "pane_gone" or seen.state == "server_gone":
        return Ending(seen.state, None, note=gone_note(seen.state, w.pane_id, w.run_id))
    if isinstance(ended, Ending):
        return ended
    if ended is False:
        why = (
            f"the typed frame did not start within {START_BOUND:g}s (the far side did not "
            "run the line: still busy, a program that is not a shell, or a half-typed line)"
        )
        return Ending("not_started", note=typed_not_started(w.pane_id, why, shown(seen.lines)),
                      reason="no_start_marker", pane_lines=shown(seen.lines))
    found = extract(w.frame, seen.lines)
    note: str | None = None
    # stopped and resumed: the job lines and what the pane showed between them are left
    # out (frames/base.py, ``_own``); where the job lines were not all seen, they stay
    kept = was_stopped and not found.hidden
    if kept:
        note = (
            "the run was stopped (C-z) and resumed: the output holds the far shell's "
            "job lines too (the frame's source among them)"
        )
    elif found.hidden:
        note = resumed_note(found.hidden)
    elif not found.started:
        note = missing_start(seen.history_full)
    framed = found.started and not kept
    outgrew = not found.started and seen.history_full
    return Ending("completed", found.status, found.lines, framed, not framed, note,
                  outgrew=outgrew)

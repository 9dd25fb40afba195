"""Dispatching and watching a typed run (typed_frame.py): completion from the pane's output.

Nothing on the far side can signal muxport, so the pane's output is the only channel:
the watcher wakes on the pane's control-mode output events (``muxport.watch``; a missed
event costs at most its re-check interval), captures, and looks for the markers. The
end marker carries the status. A run whose start marker has not appeared within
``START_BOUND`` seconds of typing ends ``not_started`` (the pane is released); where the
far shell is unknown (a carrier), a probe line goes first and a command is typed only
once a shell has answered it within ``PROBE_BOUND``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import TypeVar

import anyio
from muxport import ToolContext
from muxport.errors import ToolError
from muxport.inputs import check_input
from muxport.watch import watcher

from muxport_execute.frame import extract
from muxport_execute.input_wait import View, echo_off
from muxport_execute.reach import Reach
from muxport_execute.run_watch import Observation, gone_note, observe
from muxport_execute.runs import Run
from muxport_execute.typed_frame import Kind, TypedFrame, new_typed_frame, probed_kind

PROBE_BOUND = 5.0
START_BOUND = 5.0
LOOK_GAP = 0.01  # at most one capture per LOOK_GAP while output streams
SHOWN = 5  # lines of the pane quoted in a not_started note
T = TypeVar("T")


def shown(lines: list[str]) -> list[str]:
    rows = [row.rstrip() for row in lines]
    while rows and not rows[-1]:
        rows.pop()
    return rows[-SHOWN:]


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
    async with watcher(ctx, pane_id, session_id) as activity:
        while True:
            seen = await observe(ctx.tmux, pane_id, pane_pid)
            answer = found(seen) if seen.state == "alive" else None
            now = anyio.current_time()
            if answer is not None or seen.state != "alive":
                return answer, seen
            if deadline is not None and now >= deadline:
                return None, seen
            await anyio.sleep(LOOK_GAP)
            wait = activity.registry.recheck_interval()
            if deadline is not None:
                wait = min(wait, deadline - anyio.current_time())
            await activity.wait(wait)


async def type_line(ctx: ToolContext, pane_id: str, line: str) -> None:
    try:
        await ctx.tmux.run(("send-keys", "-t", pane_id, "-l", "--", line + "\r"))
    except ToolError as error:
        error.delivery = "possibly_sent"
        raise


async def probe(
    ctx: ToolContext, pane_id: str, pane_pid: str, session_id: str
) -> tuple[Kind | None, list[str]]:
    """Type the probe line; the far shell's kind, or None (and what the pane shows)."""
    frame = new_typed_frame("posix")
    await type_line(ctx, pane_id, frame.probe_line())
    def answered(seen: Observation) -> Kind | None:
        return probed_kind(frame, seen.lines)

    found, seen = await look_until(ctx, pane_id, pane_pid, session_id, answered, PROBE_BOUND)
    kind: Kind | None = "fish" if found == "fish" else "posix" if found == "posix" else None
    return kind, shown(seen.lines)


def not_started_note(pane_id: str, what: str, lines: list[str]) -> str:
    screen = " | ".join(lines) if lines else "(nothing)"
    return (
        f"{what}; the pane's last lines: {screen}. Nothing was run by this call. Look with "
        f"capture_pane {pane_id}: finish what the far side asks for (a password, a host key "
        "question: ask the user to type secrets), or leave a program there with send_keys, "
        "then call run_shell_command again"
    )


async def watch_typed(
    ctx: ToolContext, run: Run, frame: TypedFrame, pane_pid: str, session_id: str
) -> None:
    """Background task: follow a dispatched typed run until its end marker (or the end)."""
    started = False

    def progress(seen: Observation) -> bool | None:
        nonlocal started
        found = extract(frame, seen.lines)
        started = started or found.started
        if found.ended:
            return True
        if not started and anyio.current_time() - typed_at > START_BOUND:
            return False
        return None

    typed_at = anyio.current_time()
    try:
        ended, seen = await look_until(ctx, run.pane_id, pane_pid, session_id, progress, None)
        if seen.state == "pane_gone" or seen.state == "server_gone":
            run.finish(seen.state, [], False, True, None, gone_note(seen.state, run))
        elif ended is False:
            note = not_started_note(
                run.pane_id,
                f"the typed frame did not start within {START_BOUND:g}s (the far side did not "
                "run the line: still busy, a program that is not a shell, or a half-typed line)",
                shown(seen.lines),
            )
            run.finish("not_started", [], False, False, None, note)
        else:
            found = extract(frame, seen.lines)
            note = None
            if not found.started:
                note = (
                    "the start of the output is no longer in the pane (it outgrew the pane's "
                    "history, or the pane was cleared): these are the newest lines it still "
                    "holds; redirect to a file (cmd > out.txt) to keep everything"
                )
            run.finish("completed", found.lines, found.started, not found.started,
                       found.status, note)
    except ToolError as error:
        run.finish("completed", [], False, True, None,
                   f"the run's output could not be read: {error.message}")
    finally:
        if not run.done.is_set():  # muxport is shutting down
            run.finish("completed", [], False, True, None, "muxport stopped watching this run")


async def dispatch(
    ctx: ToolContext,
    run: Run,
    command: str,
    suppress_history: bool,
    reach: Reach,
    pane_pid: str,
    shell_group: int | None,
) -> None:
    """Type the run's frame (after the probe, where the far shell is unknown) and start
    watching it; a probe nobody answered finishes the run ``not_started``."""
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", run.pane_id, "#{alternate_on} #{session_id} #{pane_tty}")
    )
    alternate, session_id, tty = [*out.stdout.split(), "", "", ""][:3]
    frame = new_typed_frame(reach.kind or "posix")
    kinds: tuple[Kind, ...] = ("posix", "fish") if reach.kind is None else (reach.kind,)
    for each in kinds:
        dataclasses.replace(frame, kind=each).typed_line(command, suppress_history)  # length
    run.typed = frame
    if reach.kind is None:
        if alternate == "1":
            note = not_started_note(
                run.pane_id,
                "the pane shows a full-screen program (alternate screen) on the far side of "
                f"{reach.carrier}, not a shell prompt: nothing was typed",
                [],
            )
            run.finish("not_started", [], False, False, None, note)
            return
        if echo_off(tty):
            note = not_started_note(
                run.pane_id,
                "the pane's terminal reads a line with echo off (the carrier asks for a "
                "password or passphrase): nothing was typed",
                [],
            )
            run.finish("not_started", [], False, False, None, note)
            return
        kind, lines = await probe(ctx, run.pane_id, pane_pid, session_id)
        if kind is None:
            note = not_started_note(
                run.pane_id,
                f"no shell answered the probe line within {PROBE_BOUND:g}s (the far side may "
                "still be connecting, ask for a password, or run a program)",
                lines,
            )
            run.finish("not_started", [], False, False, None, note)
            return
        frame = dataclasses.replace(frame, kind=kind)
        run.typed = frame
    await check_input(ctx, run.pane_id, exactly_one=True)  # again, right before dispatch
    await type_line(ctx, run.pane_id, frame.typed_line(command, suppress_history))
    run.started = time.monotonic()
    run.dispatched = True
    if reach.local_view and pane_pid.isdigit():
        run.view = View(int(pane_pid), shell_group, tty)
    typed = frame

    async def follow() -> None:
        await watch_typed(ctx, run, typed, pane_pid, session_id)

    ctx.spawn(follow)

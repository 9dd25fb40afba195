"""Watching a typed run (typed_frame.py; dispatched by typed_dispatch.py): completion,
and every other end, from the pane's output.

Nothing on the far side can signal muxport, so the pane's output is the only channel:
the watcher wakes on the pane's control-mode output events (``muxport.watch``; a missed
event costs at most its re-check interval), captures, and looks for the markers. The
end marker carries the status. A run whose start marker has not appeared within
``START_BOUND`` seconds of typing ends ``not_started`` (the pane is released); where the
far shell is unknown (a carrier), a probe line goes first and a command is typed only
once a shell has answered it within ``PROBE_BOUND``.

Other ends (lost, stopped) are decided by typed_end.py from the same observations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio
from muxport import ToolContext, ToolError, watcher

from muxport_execute.frame import Extracted, extract
from muxport_execute.pane_view import Observation, observe
from muxport_execute.run_watch import fault_ending, gone_note
from muxport_execute.runs import Ending, Run
from muxport_execute.typed_end import far_end, job_state, shown
from muxport_execute.typed_frame import Kind, TypedFrame, new_typed_frame, probed_kind

PROBE_BOUND = 5.0
START_BOUND = 5.0
LOOK_GAP = 0.01  # at most one capture per LOOK_GAP while output streams
T = TypeVar("T")


@dataclass
class TypedRun:
    """A typed frame as the run sees it (runs.RunFrame): what it knows comes from the
    pane's output, which the watcher below reads."""

    frame: TypedFrame
    command: str
    carrier: str = ""  # the carrier in the foreground when typed ("": the far shell is)
    started: bool = False
    status: int | None = None
    ended: bool = False

    @property
    def token(self) -> str:
        return self.frame.nonce[:16]  # the typed line holds it (the nonce's first half)

    def typed_line(self, suppress_history: bool) -> str:
        return self.frame.typed_line(self.command, suppress_history)

    def has_started(self) -> bool:
        return self.started

    def has_ended(self) -> bool:
        return self.ended

    def read_status(self) -> int | None:
        return self.status

    def cancel_start(self) -> bool:
        return False  # typed text cannot be taken back

    def extract(self, capture: list[str]) -> Extracted:
        return extract(self.frame, capture)

    def remove(self) -> None:
        pass  # nothing was written anywhere


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
        "question: ask the user to type secrets), leave a program there with send_keys, or "
        "send_keys C-c to discard a half-typed line (vi command mode too), then call "
        "run_shell_command again"
    )


async def watch_typed(ctx: ToolContext, run: Run, typed: TypedRun, pane_pid: str,
                      session_id: str) -> None:
    """Background task: follow a dispatched typed run until its end marker (or the end)."""
    was_stopped = False

    def progress(seen: Observation) -> Ending | bool | None:
        nonlocal was_stopped
        found = typed.extract(seen.lines)
        if found.started and not typed.started:
            typed.started = True
            run.start()
        if found.ended:
            typed.ended, typed.status = True, found.status
            return True
        ending = far_end(run, typed, seen)
        if ending is not None:
            return ending
        job = job_state(typed.frame, seen.lines) if typed.started else None
        if job == "stopped" and run.state == "started":
            was_stopped = True
            run.stop()
        elif job == "running":
            run.resume()
        if not typed.started and run.elapsed() > START_BOUND:
            return False
        return None

    try:
        ended, seen = await look_until(ctx, run.pane_id, pane_pid, session_id, progress, None)
        if seen.state == "pane_gone" or seen.state == "server_gone":
            run.end(Ending(seen.state, None, note=gone_note(seen.state, run)))
        elif isinstance(ended, Ending):
            run.end(ended)
        elif ended is False:
            note = not_started_note(
                run.pane_id,
                f"the typed frame did not start within {START_BOUND:g}s (the far side did not "
                "run the line: still busy, a program that is not a shell, or a half-typed line)",
                shown(seen.lines),
            )
            run.end(Ending("not_started", note=note, reason="no_start_marker",
                           pane_lines=shown(seen.lines)))
        else:
            found = typed.extract(seen.lines)
            note = None
            if was_stopped:
                note = (
                    "the run was stopped (C-z) and resumed: the output holds the far shell's "
                    "job lines too (the frame's source among them)"
                )
            elif not found.started:
                note = (
                    "the start of the output is no longer in the pane (it outgrew the pane's "
                    "history, or the pane was cleared): these are the newest lines it still "
                    "holds; redirect to a file (cmd > out.txt) to keep everything"
                )
            framed = found.started and not was_stopped
            run.end(Ending("completed", found.status, found.lines, framed, not framed, note))
    except Exception as fault:  # the run ends; the server and every other run go on
        run.end(fault_ending(run, fault))
    finally:
        if not run.final:  # muxport is shutting down
            run.end(Ending("error", None, note="muxport stopped watching this run",
                           reason="shutdown"))

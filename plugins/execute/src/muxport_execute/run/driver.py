"""A run's one owner, from reserve to end (docs/run-outcomes.md, "Frames").

``start`` reserves the pane, checks what runs there and chooses the frame (the reach)
before anything is built; the frame (a ``frames.strategy.Strategy``, built by its kind
in the table of frame kinds, frames/kinds.py) then prepares, types its line and follows
the run. Its events become the run's transitions here, and nowhere else; a run's fields
are set here, once, when it is dispatched (or ends before that). Every ending is recorded
here once: the frame's own, a fault's (outcome ``error``: a fault ends that run, never
the server) and a shutdown's.
"""

from __future__ import annotations

import time
from dataclasses import replace

import anyio
from muxport import ToolContext, ToolError
from muxport.policy import Limits, check_input, without_plumbing

from muxport_execute.frames import kinds
from muxport_execute.frames.choose import choose
from muxport_execute.frames.sight import ProcessView
from muxport_execute.frames.strategy import Ending, Event, Outcome, Strategy
from muxport_execute.frames.typed_text import is_carrier
from muxport_execute.frames.where import far_host
from muxport_execute.notes import program_name
from muxport_execute.pane.ready import ready_shell
from muxport_execute.run.table import Run, RunTable, State


def _move(run: Run, to: State | Outcome) -> None:
    run.state = to
    changed, run.changed = run.changed, anyio.Event()
    changed.set()


def _fix(run: Run, frame: Strategy, view: ProcessView | None) -> None:
    """The run's frame and its view of the run's processes, set once."""
    run.frame, run.frame_name, run.view = frame, frame.name, view


def _dispatch(run: Run, frame: Strategy, view: ProcessView | None) -> None:
    _fix(run, frame, view)
    run.began = time.monotonic()
    _move(run, "dispatched")


def _apply(run: Run, event: Event) -> None:
    """A frame's event as the run's transition; one that does not apply is ignored."""
    if event == "started" and run.state == "dispatched":
        _move(run, "started")
    elif event == "stopped" and run.state == "started":
        _move(run, "stopped")
    elif event == "background" and run.state == "started":
        _move(run, "background")
    elif event == "resumed" and run.state in ("stopped", "background"):
        _move(run, "started")
    elif event in ("typed", "read"):  # not a transition: said while the keys wait unread
        run.typed_in = event == "typed"


def _end(run: Run, ending: Ending) -> None:
    """Record the final answer once (the newest lines within the largest budget)."""
    if run.ending is not None:
        return
    if run.frame is not None:  # no marker text in any answer, whichever path read it
        ending = scrubbed(run.frame, ending)
    kept = Limits.keep_newest(ending.output, Limits.MAX_LINES)
    run.output, run.stored_dropped = kept.lines, kept.lines_dropped
    run.stored_truncated = kept.truncated
    run.ending = ending
    run.finished = time.monotonic()
    _move(run, ending.outcome)
    run.done.set()


def scrubbed(frame: Strategy, ending: Ending) -> Ending:
    """``ending`` without the frame's marker text in its lines and in its note, which may
    quote the pane (notes.typed_not_started); what the pane showed, also without the rows
    other runs left there (docs/answers.md, "Plumbing")."""
    lines = None
    if ending.pane_lines is not None:
        shown = (without_plumbing(row) for row in frame.scrub(ending.pane_lines))
        lines = [row for row in shown if row is not None]
    note = None if ending.note is None else " ".join(frame.scrub([ending.note]))
    return replace(ending, output=frame.scrub(ending.output), pane_lines=lines, note=note)


async def _frame(
    ctx: ToolContext, table: RunTable, run: Run, command: str, suppress_history: bool,
    requested: str,
) -> Strategy:
    """The frame the pane's foreground program needs (refused where none fits): the kind
    the table of frame kinds chose, built (frames/kinds.py)."""
    cohort = await check_input(ctx, run.pane_id, exactly_one=True,
                               what=f"the command {command!r}")
    shell = cohort.command
    if not is_carrier(shell) and program_name(shell) != "fish":
        # waits for a shell that is still starting; refuses what is not a shell
        shell = await ready_shell(ctx.tmux, run.pane_id, shell, cohort.pane_pid)
    reach = choose(requested, shell, cohort.pane_pid, run.pane_id, far_host=far_host(ctx.tmux))
    kind = kinds.named(reach.frame)
    assert kind is not None  # the choice returns a kind of the table
    return kind.build(kinds.Order(run.pane_id, run.run_id, command, suppress_history, reach,
                                  cohort.pane_pid, shell, table.pending, table.far_looks))


async def start(
    ctx: ToolContext, table: RunTable, pane_id: str, command: str, suppress_history: bool,
    requested: str,
) -> Run:
    """Reserve ``pane_id``, prepare the frame and type its line; the run, followed in
    the background once dispatched. A refusal or a fault before typing leaves nothing:
    the reservation and whatever the frame held are released."""
    run = table.reserve(pane_id)
    frame: Strategy | None = None
    try:
        try:
            frame = await _frame(ctx, table, run, command, suppress_history, requested)
            early = await frame.prepare(ctx)
        except OSError as exc:  # a full disk writing the frame's files: nothing was typed
            raise ToolError.from_os(
                exc, "writing the run's private files", delivery="not_sent"
            ) from exc
        if early is None:
            try:
                view = await frame.send(ctx)
            except OSError as exc:  # reading /proc before typing: nothing was typed
                raise ToolError.from_os(
                    exc, "reading the pane's processes", delivery="not_sent"
                ) from exc
            except ToolError as error:
                # out of descriptors, no tmux client started: nothing was typed
                if error.code != "resource_exhausted":
                    error.delivery = "possibly_sent"
                raise
    except BaseException:
        with anyio.CancelScope(shield=True):
            if frame is not None:
                await frame.close()
        table.release(run)
        raise
    if early is not None:  # ended before its line was typed
        await frame.close()
        _fix(run, frame, None)
        _end(run, early)
        return run
    _dispatch(run, frame, view)
    followed = frame

    async def follow() -> None:
        await _follow(run, followed)

    ctx.spawn(follow)
    return run


async def _follow(run: Run, frame: Strategy) -> None:
    """Background task: the frame's events until its ending, recorded here."""
    ending: Ending | None = None
    try:
        ending = await frame.follow(lambda event: _apply(run, event))
    except Exception as fault:  # the run ends; the server and every other run go on
        ending = fault_ending(run, fault)
    finally:
        with anyio.CancelScope(shield=True):
            await frame.close()
        _end(run, ending or Ending(
            "error", None, note="muxport stopped watching this run", reason="shutdown"
        ))


def fault_ending(run: Run, fault: Exception) -> Ending:
    while isinstance(fault, ExceptionGroup):  # raised through a task group
        fault = fault.exceptions[0]
    if isinstance(fault, ToolError):
        what, code = fault.message, fault.code
    else:
        what, code = f"{type(fault).__name__}: {fault}", "internal_error"
    return Ending(
        "error",
        None,
        note=(
            f"muxport lost track of run {run.run_id} in {run.pane_id}: {what}; the command "
            "may still be running there: capture_pane shows the pane once tmux answers, "
            "and the next run_shell_command there checks it first"
        ),
        reason=code,
    )

"""A run's answer: what run_shell_command and wait_for_run return, once the run ended,
stopped or outlived the wait (docs/run-outcomes.md, "Outcomes").
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import anyio
from muxport import Result, ToolContext, ToolError
from muxport.policy import Limits
from pydantic import Field, WithJsonSchema

from muxport_execute.frames.sight import ProcessView
from muxport_execute.frames.strategy import FrameName
from muxport_execute.frames.where import far_host
from muxport_execute.host.input_wait import Reader
from muxport_execute.notes import (
    background_note,
    stop_recovery,
    stopped_recovery,
    typed_note,
)
from muxport_execute.pane.view import observe
from muxport_execute.run.table import Run

AnswerOutcome = Literal[
    "completed", "timed_out", "waiting_for_input", "stopped", "not_started", "lost",
    "pane_gone", "server_gone", "error",
]
PROMPT_LINES = 3
# A shell the command started that waits at its prompt ends the run (frames/local_follow.py,
# two looks at most 0.5 s apart): the answer waits that long for it before it would say
# waiting_for_input.
TAKE_OVER_WAIT = 2.0


class RunAnswer(Result):
    # A field at its default is left out of the answer; the output schema gives each default.
    # The text leaves out what the call named (the pane; the timeout and max_lines, as the
    # schema's bounds are the caps) and a count of bytes not UTF-8 that found none.
    text_body = "output"
    text_omits = frozenset({"pane_id", "effective_timeout", "max_lines"})
    text_quiet: ClassVar[dict[str, Any]] = {"invalid_utf8": 0}
    pane_id: str
    outcome: AnswerOutcome = Field(description="see note")
    exit_status: int | None = None
    output: list[str] = Field(description="only what the command printed")
    framed: bool = Field(default=True, description="output is exactly the command's")
    lines_missed: bool = Field(default=False, description="output may be missing")
    truncated: bool = False
    lines_dropped: int = 0
    run_id: str | None = Field(default=None, description="for wait_for_run while it runs")
    seconds: float = Field(description="how long it ran")
    effective_timeout: float = Limits.DEFAULT_WAIT
    max_lines: int = Limits.DEFAULT_LINES
    reason: str | None = None
    pane_lines: list[str] | None = None
    frame: FrameName = Field(default="local", description="local or typed")
    echo_off: bool | None = Field(default=None, description="a secret prompt")
    # bytes not UTF-8 (README "Bytes that are not UTF-8"); left out when not known. Its
    # schema says integer only, as note's does: tools/list stays under its limit.
    invalid_utf8: Annotated[
        int | None, WithJsonSchema({"type": "integer"}, mode="serialization")
    ] = None
    prompt: list[str] | None = None


def answer(
    run: Run, outcome: AnswerOutcome, lines: list[str], framed: bool, missed: bool,
    max_lines: int | None, timeout: float, note: str | None = None,
    reading: Reader | None = None, outgrew: bool = False,
) -> RunAnswer:
    budget = Limits.lines(max_lines)
    kept = Limits.keep_newest(lines, budget)
    ending = run.ending if run.final else None
    dropped = run.stored_dropped if ending else 0
    note = ending.note if ending else note
    if run.typed_in:
        note = "; ".join(filter(None, (note, typed_note(run.pane_id))))
    if kept.answer_full and kept.lines_dropped:
        note = "; ".join(filter(None, (note, (
            f"{kept.lines_dropped} older lines of output were left out to keep the answer "
            "within the answer budget (newest kept); for all of it, redirect the output to a "
            "file and read it in parts"))))
    return RunAnswer(
        pane_id=run.pane_id,
        outcome=outcome,
        exit_status=ending.exit_status if ending else None,
        output=kept.lines,
        framed=framed,
        lines_missed=missed,
        # a cut made when the output was stored stays reported through this second cut, and
        # lines lost off the top of a full history are a cut too (issue 30)
        truncated=kept.truncated or dropped > 0 or (ending is not None and run.stored_truncated)
        or (ending.outgrew if ending is not None else outgrew),
        lines_dropped=kept.lines_dropped + dropped,
        run_id=None if run.final else run.run_id,  # something left to collect
        seconds=round(run.elapsed(), 3),
        effective_timeout=timeout,
        max_lines=budget,
        note=note,
        reason=ending.reason if ending else None,
        pane_lines=ending.pane_lines if ending else None,
        invalid_utf8=ending.invalid_utf8 if ending else None,
        frame=run.frame_name,
        echo_off=reading.echo_off if reading is not None else None,
        prompt=[line for line in lines if line.strip()][-PROMPT_LINES:] if reading else None,
    )


async def settle(ctx: ToolContext, run: Run, wait: float, max_lines: int | None) -> RunAnswer:
    """Wait up to ``wait`` seconds for the run to end or stop; its answer, or the output so
    far. A tool error meanwhile (tmux stopped answering) names the run: it was dispatched,
    its watcher goes on, and wait_for_run collects it once tmux answers again."""
    try:
        return await _settle(ctx, run, wait, max_lines)
    except Exception as exc:
        error = _tool_error(exc)
        if error is None:
            raise
        error.data = {**error.data, "run_id": run.run_id}
        error.message += (
            f"; run {run.run_id} was started in {run.pane_id} and is still watched: call "
            f"wait_for_run with run_id {run.run_id} for its exit status and output"
        )
        raise error from None


def _tool_error(exc: BaseException) -> ToolError | None:
    """The tool error ``exc`` is, or the one a task group raised it in (the heartbeat's)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, OSError):  # out of descriptors reading /proc: the run goes on
        fault = ToolError.from_os(exc, "watching the run")
        fault.delivery = "observed"  # its line was typed
        return fault
    return exc if isinstance(exc, ToolError) else None


async def _settle(ctx: ToolContext, run: Run, wait: float, max_lines: int | None) -> RunAnswer:
    reading: Reader | None = None
    view = run.view  # the frame's view of the run's processes (frames/sight.py), if any

    async def inputs(scope: anyio.CancelScope) -> None:
        nonlocal reading
        if view is None:
            return
        reading = await view.until_reading(ctx)
        scope.cancel()

    if view is not None:
        view.ready()
    async with ctx.heartbeat(f"run {run.run_id} in {run.pane_id}", wait):
        async with anyio.create_task_group() as group:
            if not run.final:
                group.start_soon(inputs, group.cancel_scope)
            await run.settled(wait)
            group.cancel_scope.cancel()
        if reading is not None and view is not None and view.took_over(reading):
            await run.settled(TAKE_OVER_WAIT)
    seen = None if run.final else await observe(ctx.tmux, run.pane_id, "")
    if run.ending is not None or seen is None or run.frame is None:  # perhaps while read
        end = run.ending
        assert end is not None
        return answer(run, end.outcome, run.output, end.framed, end.lines_missed, max_lines, wait)
    found = run.frame.extract(seen.lines)
    outgrew = not found.started and seen.history_full
    if run.state == "stopped":
        note = stopped_recovery(run.pane_id, run.run_id)
        return answer(run, "stopped", found.lines, False, not found.started, max_lines, wait, note,
                      outgrew=outgrew)
    if run.state == "background":
        note = background_note(run.pane_id, run.run_id)
        return answer(run, "timed_out", found.lines, False, not found.started, max_lines, wait,
                      note, outgrew=outgrew)
    if reading is not None and view is not None:  # only a view finds a reader
        note = waiting_note(run, reading, reader_name(view, reading, seen.command))
        return answer(run, "waiting_for_input", found.lines, False, not found.started,
                      max_lines, wait, note, reading, outgrew)
    note = (
        "still running: wait_for_run collects it "
        f"({stop_recovery(shown(run, seen.command), run.pane_id)})"
    )
    if ctx.closing:  # muxport exits: the run goes on in its pane, its id ends with the server
        note = (
            f"the command goes on in {run.pane_id}, but its exit status is lost: run_id "
            f"{run.run_id} ends with this server (capture_pane of {run.pane_id} shows its output)"
        )
    elif view is None:
        host = far_host(ctx.tmux)
        where = (f"on {host}, the served server's host (--ssh)," if host is not None else
                 "on the far side of a carrier (ssh, sudo, a container)")
        note += (
            f"; muxport cannot see whether a command {where} waits for input: capture_pane "
            "shows what the pane asks"
        )
    return answer(run, "timed_out", found.lines, False, not found.started, max_lines, wait, note,
                  outgrew=outgrew)


def shown(run: Run, command: str) -> str:
    """The run's foreground program: tmux's ``command`` names the job's leader (the frame's
    subshell), /proc the program in front (vim, less), where /proc shows this run."""
    found = run.view.foreground_program() if run.view is not None else None
    return found or command


def reader_name(view: ProcessView, reading: Reader, shown: str) -> str:
    """The program that reads, as the run's view names it (tmux names the job's leader,
    the frame's subshell: ``shown``)."""
    return view.reader_program(reading) or shown


def waiting_note(run: Run, reading: Reader, program: str) -> str:
    """``program``: the pane's foreground program, whose way out the note names."""
    collect = f"then call wait_for_run with run_id {run.run_id} for its exit status"
    if reading.echo_off:
        return (
            f"run {run.run_id} waits for input with echo off in {run.pane_id}: a password or "
            "another secret. Ask the user to type it into that pane themselves, or call "
            "request_secret (the user types it on a one-time page); never ask for a password or "
            f"send one yourself; {collect} (send_keys C-c gives up)"
        )
    return (
        f"run {run.run_id} waits for input in {run.pane_id} (see prompt): answer with "
        f"paste_text or send_keys to {run.pane_id}, {collect}; to stop it instead: "
        f"{stop_recovery(program, run.pane_id)}"
    )

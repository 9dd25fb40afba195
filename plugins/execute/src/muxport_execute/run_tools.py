"""run_shell_command and wait_for_run: one call runs a command and returns its output and
exit status; a run that outlives its wait can be collected later (docs/run-outcomes.md)."""

from __future__ import annotations

from typing import Annotated, Literal

import anyio
from anyio.abc import Process
from muxport import (
    COMMAND,
    READ,
    Args,
    MaxLines,
    PaneId,
    Result,
    Timeout,
    ToolContext,
    ToolError,
    tool,
)
from muxport.policy import Cohort, check_input, clamp_lines, effective_timeout, keep_newest
from pydantic import Field, WithJsonSchema

from muxport_execute import frame as frames
from muxport_execute import procs, raw_bytes, shell_reads, typed_dispatch
from muxport_execute.dispatch import check_line, ready_shell
from muxport_execute.input_wait import Reader, View, start_thread, until_reading
from muxport_execute.line_state import Line, PendingInput, read_line
from muxport_execute.notes import program_name, stop_recovery
from muxport_execute.pane_view import observe
from muxport_execute.reach import Requested, choose
from muxport_execute.run_watch import Watch, stopped_note, watch
from muxport_execute.runs import FrameName, Run, RunTable
from muxport_execute.typed_frame import is_carrier

MAX_COMMAND = 65_536
AnswerOutcome = Literal[
    "completed", "timed_out", "waiting_for_input", "stopped", "not_started", "lost",
    "pane_gone", "server_gone", "error",
]
PROMPT_LINES = 3


class RunArgs(Args):
    pane_id: PaneId
    command: str = Field(
        min_length=1,
        max_length=MAX_COMMAND,
        description="shell command(s) for the pane's shell; may span lines",
    )
    timeout: Timeout = None
    max_lines: MaxLines = None
    suppress_history: bool = Field(
        default=True, description="keep the typed line out of the shell's history (best effort)"
    )
    frame: Requested = Field(
        default="auto",
        description="auto: local where the shell reads muxport's files, else typed (ssh, su)",
    )


class WaitRunArgs(Args):
    run_id: str = Field(
        pattern=r"^run-[0-9a-f]{16}$",
        max_length=20,
        description="the run_id a run_shell_command answer gave",
    )
    timeout: Timeout = None
    max_lines: MaxLines = None


class RunAnswer(Result):
    pane_id: str
    outcome: AnswerOutcome = Field(description="see note")
    exit_status: int | None = None
    output: list[str] = Field(description="only what the command printed")
    framed: bool = Field(description="output is exactly the command's")
    lines_missed: bool = Field(description="output may be missing")
    truncated: bool
    lines_dropped: int
    run_id: str = Field(description="for wait_for_run")
    seconds: float = Field(description="how long it ran")
    effective_timeout: float
    max_lines: int
    reason: str | None = None
    pane_lines: list[str] | None = None
    frame: FrameName = Field(description="local or typed")
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
    reading: Reader | None = None,
) -> RunAnswer:
    budget = clamp_lines(max_lines)
    kept = keep_newest(lines, budget)
    ending = run.ending if run.final else None
    dropped = run.stored_dropped if ending else 0
    return RunAnswer(
        pane_id=run.pane_id,
        outcome=outcome,
        exit_status=ending.exit_status if ending else None,
        output=kept.lines,
        framed=framed,
        lines_missed=missed,
        # a cut made when the output was stored stays reported through this second cut
        truncated=kept.truncated or dropped > 0 or (ending is not None and run.stored_truncated),
        lines_dropped=kept.lines_dropped + dropped,
        run_id=run.run_id,
        seconds=round(run.elapsed(), 3),
        effective_timeout=timeout,
        max_lines=budget,
        note=ending.note if ending else note,
        reason=ending.reason if ending else None,
        pane_lines=ending.pane_lines if ending else None,
        invalid_utf8=ending.invalid_utf8 if ending else None,
        frame=run.frame_name,
        echo_off=reading.echo_off if reading is not None else None,
        prompt=[line for line in lines if line.strip()][-PROMPT_LINES:] if reading else None,
    )


async def settle(ctx: ToolContext, run: Run, wait: float, max_lines: int | None) -> RunAnswer:
    """Wait up to ``wait`` seconds for the run to end or stop; its answer, or the output so far."""
    reading: Reader | None = None

    async def inputs(view: View, scope: anyio.CancelScope) -> None:
        nonlocal reading
        reading = await until_reading(view)
        scope.cancel()

    if run.view is not None:
        start_thread()
    async with ctx.heartbeat(f"run {run.run_id} in {run.pane_id}", wait):
        async with anyio.create_task_group() as group:
            if run.view is not None and not run.final:
                group.start_soon(inputs, run.view, group.cancel_scope)
            await run.settled(wait)
            group.cancel_scope.cancel()
    seen = None if run.final else await observe(ctx.tmux, run.pane_id, "")
    if run.ending is not None or seen is None or run.frame is None:  # perhaps while read
        end = run.ending
        assert end is not None
        return answer(run, end.outcome, run.output, end.framed, end.lines_missed, max_lines, wait)
    found = run.frame.extract(seen.lines)
    if run.state == "stopped":
        note = stopped_note(run)
        return answer(run, "stopped", found.lines, False, not found.started, max_lines, wait, note)
    if reading is not None:
        return answer(run, "waiting_for_input", found.lines, False, not found.started,
                      max_lines, wait, waiting_note(run, reading), reading)
    note = (
        f"still running after {wait:g}s; call wait_for_run with run_id {run.run_id} "
        f"for its exit status and output ({stop_recovery(seen.command, run.pane_id)})"
    )
    if run.view is None:
        note += (
            "; muxport cannot see whether a command on the far side of a carrier (ssh, "
            "sudo, a container) waits for input: capture_pane shows what the pane asks"
        )
    return answer(run, "timed_out", found.lines, False, not found.started, max_lines, wait, note)


def waiting_note(run: Run, reading: Reader) -> str:
    collect = f"then call wait_for_run with run_id {run.run_id} for its exit status"
    if reading.echo_off:
        return (
            f"run {run.run_id} waits for input with echo off in {run.pane_id}: a password or "
            "another secret. Ask the user to type it into that pane themselves; never ask for "
            f"a password or send one yourself; {collect} (send_keys C-c gives up)"
        )
    return (
        f"run {run.run_id} waits for input in {run.pane_id} (see prompt): answer with "
        f"paste_text or send_keys to {run.pane_id}, {collect}; send_keys C-c stops it"
    )


async def waiter_and_check(
    ctx: ToolContext, channel: str, pane_id: str
) -> tuple[Process, Cohort]:
    """Start the run's wait-for client while the first input check runs: they are
    independent, and the client costs a tmux process start (about 2 ms) a run would
    otherwise wait for. Nothing reaches the pane before the check passes."""
    started: list[Process] = []
    problems: list[Exception] = []

    async def start() -> None:
        try:
            started.append(await ctx.tmux.start_waiter(channel))
        except Exception as exc:  # raised below, outside the task group
            problems.append(exc)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(start)
            try:
                cohort = await check_input(ctx, pane_id, exactly_one=True)
            except Exception as exc:  # raised below, after the client has started
                problems.insert(0, exc)
        if problems:
            raise problems[0]
    except BaseException:
        for process in started:
            await release_waiter(ctx, process, channel)
        raise
    return started[0], cohort


async def release_waiter(ctx: ToolContext, process: Process, channel: str) -> None:
    """End a run's wait-for client that will never be signalled (the run was refused or
    cancelled before dispatch). It is woken rather than only killed: a killed waiter
    stays registered on the tmux server."""
    try:
        await ctx.tmux.wake_waiter(channel, process)
    except (ToolError, OSError):  # tmux fails: at least reap the client
        await ctx.tmux.stop_client(process)


async def final_checks(
    ctx: ToolContext, pane_id: str, shell: str, pending: PendingInput
) -> Line:
    """The input check again right before typing, beside a look at the line editor."""
    lines = []
    async with anyio.create_task_group() as group:

        async def again() -> None:
            await check_input(ctx, pane_id, exactly_one=True)

        group.start_soon(again)

        async def line() -> None:
            lines.append(await read_line(ctx.tmux, pane_id))

        group.start_soon(line)
    return await check_line(ctx.tmux, pane_id, shell, lines[0], pending)


async def dispatch(
    ctx: ToolContext, run: Run, args: RunArgs, pending: PendingInput
) -> Watch | None:
    """Check the pane, type the line; the watcher of the dispatched run (None: a typed
    frame, which typed_dispatch types and watches, or a run that ended before anything
    was typed)."""
    frame = frames.prepare(
        args.command, ctx.tmux.binary, ctx.tmux.socket_path, args.suppress_history
    )
    run.frame = frame
    waiter, cohort = await waiter_and_check(ctx, frame.channel, args.pane_id)
    try:
        shell = cohort.command
        if not is_carrier(shell) and program_name(shell) != "fish":
            # waits for a shell that is still starting; refuses what is not a shell
            shell = await ready_shell(ctx.tmux, args.pane_id, shell, cohort.pane_pid)
        reach = choose(args.frame, shell, cohort.pane_pid, args.pane_id)
        if reach.frame == "typed":
            await release_waiter(ctx, waiter, frame.channel)
            frame.remove()
            run.frame = None
            group = procs.foreground_group(cohort.pane_pid)
            await typed_dispatch.dispatch(
                ctx, run, args.command, args.suppress_history, reach, cohort.pane_pid, group,
                pending, shell,
            )
            return None
        if reach.kind == "fish":
            frame = frames.for_fish(frame, args.command, ctx.tmux.binary, ctx.tmux.socket_path)
            run.frame = frame
            await check_input(ctx, args.pane_id, exactly_one=True)
        else:
            await final_checks(ctx, args.pane_id, shell, pending)
        # Read while the shell has the terminal: the run has ended when it has it again.
        group = procs.foreground_group(cohort.pane_pid)
        before = procs.children(group) if group else set()
        line = frame.typed_line(args.suppress_history) + "\r"
        read_before = shell_reads.bytes_read(group)
        try:
            sent = await ctx.tmux.run(
                ("display-message", "-p", "-t", args.pane_id,
                 "#{pane_pid} #{alternate_saved_x},#{alternate_saved_y} #{pane_tty} "
                 "#{pane_pipe}"),
                raw_bytes.open_pipe(args.pane_id, frame.directory),
                ("send-keys", "-t", args.pane_id, "-l", "--", line),
            )
        except ToolError as error:
            error.delivery = "possibly_sent"
            raise
    except BaseException:
        await release_waiter(ctx, waiter, frame.channel)
        raise
    run.dispatch()
    pane_pid, alternate, tty, piped = [*sent.stdout.split(), "", "", "", ""][:4]
    if pane_pid.isdigit():
        run.view = View(int(pane_pid), group, tty)
    # the pane had no pipe of the user's: the one opened above is the run's copy
    copy = None if piped != "0" else raw_bytes.Copy(
        args.pane_id, frame.directory, frame.start_marker, f"{frame.nonce}:e:")
    return Watch(ctx.tmux, run, frame, waiter, pane_pid, shell, group, before, alternate,
                 tty, read_before, len(line.encode()), copy=copy)


@tool(COMMAND, title="Run a shell command")
async def run_shell_command(runs: RunTable, ctx: ToolContext, args: RunArgs) -> RunAnswer:
    """Run a command in a pane's shell and return its exit status and only its output.

    Any POSIX shell or fish, also through ssh, su, sudo, containers; runs in a subshell.
    outcome: completed; timed_out or waiting_for_input (answer, then wait_for_run);
    stopped (C-z); not_started; lost; pane_gone; server_gone; error. The note names
    the recovery. Refused, nothing typed: line_not_empty, not_at_prompt, starting.
    """
    timeout = effective_timeout(args.timeout)
    run = runs.reserve(args.pane_id)
    try:
        # an OSError (a full disk writing the frame) answers with what the system refused
        w = await dispatch(ctx, run, args, runs.pending)
    except BaseException:
        runs.release(run)
        raise
    if w is not None:
        watched = w
        ctx.spawn(lambda: watch(watched))
    return await settle(ctx, run, timeout, args.max_lines)


# Its reads happen in the run's watcher, which run_shell_command started: the hook check
# of read-only tools cannot guard them, so it claims no read-only (docs/client-fit.md).
@tool(
    READ.replace(output_classes=["terminal-content", "tmux-metadata"], read_only=False),
    title="Wait for a run",
)
async def wait_for_run(runs: RunTable, ctx: ToolContext, args: WaitRunArgs) -> RunAnswer:
    """Wait for a run that run_shell_command started and return its exit status and output.

    Answers every outcome run_shell_command does, with its note (what to do next); a
    stopped run answers at once. Works after the run ended too (finished runs are kept
    an hour, at most 64 runs); it never sends anything to a pane.
    """
    run = runs.get(args.run_id)
    return await settle(ctx, run, effective_timeout(args.timeout), args.max_lines)


TOOLS = [run_shell_command, wait_for_run]

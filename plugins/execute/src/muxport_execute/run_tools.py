"""run_shell_command and wait_for_run (DESIGN §9): one call runs a command and returns its
output and exit status; a run that outlives its wait can be collected later."""

from __future__ import annotations

import time
from typing import Literal

import anyio
from anyio.abc import Process
from muxport import (
    Args,
    MaxLines,
    PaneId,
    Result,
    Timeout,
    ToolContext,
    clamp_lines,
    effective_timeout,
    keep_newest,
    tool,
)
from muxport.errors import ToolError
from muxport.inputs import Cohort, check_input
from pydantic import Field

from muxport_execute import frame as frames
from muxport_execute import typed_run
from muxport_execute.input_wait import Reader, View, start_thread, until_reading
from muxport_execute.reach import Requested, choose
from muxport_execute.run_watch import foreground_group, observe, watch
from muxport_execute.runs import STATE_KEY, FrameName, Run, RunTable

MAX_COMMAND = 65_536
AnswerOutcome = Literal[
    "completed", "timed_out", "waiting_for_input", "not_started", "pane_gone", "server_gone"
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
        description="auto: the local frame where the shell can read muxport's files, else the "
        "typed frame (ssh, su, sudo, containers, another user); local or typed forces one",
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
    outcome: AnswerOutcome
    exit_status: int | None = Field(default=None, description="read from the run, never guessed")
    output: list[str] = Field(description="only what the command printed, newest kept")
    framed: bool = Field(description="both markers were found: output is exactly the command's")
    lines_missed: bool = Field(description="earlier output left the pane (history or a clear)")
    truncated: bool
    lines_dropped: int
    run_id: str = Field(description="pass to wait_for_run to collect a run that is still going")
    seconds: float = Field(description="how long the run has run (until it ended)")
    effective_timeout: float
    max_lines: int = Field(description="the line budget actually used (beyond TOOLS.md)")
    frame: FrameName = Field(description="local (private files) or typed (through the terminal)")
    echo_off: bool | None = Field(
        default=None, description="waiting_for_input: the terminal hides what is typed (a secret)"
    )
    prompt: list[str] | None = Field(
        default=None, description="waiting_for_input: the last lines shown, the question asked"
    )


def table(ctx: ToolContext) -> RunTable:
    def make() -> RunTable:
        runs = RunTable()

        async def remove_files() -> None:
            runs.remove_files()

        ctx.on_shutdown(remove_files)
        return runs

    return ctx.state(STATE_KEY, make)


def answer(
    run: Run,
    outcome: AnswerOutcome,
    lines: list[str],
    framed: bool,
    missed: bool,
    max_lines: int | None,
    timeout: float,
    stored_dropped: int = 0,
    note: str | None = None,
    reading: Reader | None = None,
) -> RunAnswer:
    budget = clamp_lines(max_lines)
    kept = keep_newest(lines, budget)
    return RunAnswer(
        pane_id=run.pane_id,
        outcome=outcome,
        exit_status=run.exit_status if outcome != "timed_out" else None,
        output=kept.lines,
        framed=framed,
        lines_missed=missed,
        truncated=kept.truncated or stored_dropped > 0,
        lines_dropped=kept.lines_dropped + stored_dropped,
        run_id=run.run_id,
        seconds=round(run.elapsed(), 3),
        effective_timeout=timeout,
        max_lines=budget,
        frame=run.frame_name,
        echo_off=reading.echo_off if reading is not None else None,
        prompt=[line for line in lines if line.strip()][-PROMPT_LINES:] if reading else None,
        note=note,
    )


async def settle(ctx: ToolContext, run: Run, wait: float, max_lines: int | None) -> RunAnswer:
    """Wait up to ``wait`` seconds for the run; its final answer, or the output so far."""
    reading: Reader | None = None

    async def inputs(view: View, scope: anyio.CancelScope) -> None:
        nonlocal reading
        reading = await until_reading(view)
        scope.cancel()

    if run.view is not None:
        start_thread()
    async with ctx.heartbeat(lambda s: f"run {run.run_id} in {run.pane_id}: {s:.0f}s"):
        with anyio.move_on_after(wait):
            async with anyio.create_task_group() as group:
                if run.view is not None:
                    group.start_soon(inputs, run.view, group.cancel_scope)
                await run.done.wait()
                group.cancel_scope.cancel()
    if run.done.is_set() and run.outcome != "running":
        return answer(
            run,
            run.outcome,
            run.output,
            run.framed,
            run.lines_missed,
            max_lines,
            wait,
            run.stored_dropped,
            run.note,
        )
    markers = run.frame or run.typed
    assert markers is not None
    seen = await observe(ctx.tmux, run.pane_id, "")
    found = frames.extract(markers, seen.lines)
    if reading is not None:
        return answer(run, "waiting_for_input", found.lines, found.started, not found.started,
                      max_lines, wait, note=waiting_note(run, reading), reading=reading)
    note = (
        f"still running after {wait:g}s; call wait_for_run with run_id {run.run_id} "
        f"for its exit status and output (send_keys C-c to {run.pane_id} stops it)"
    )
    if run.view is None:
        note += (
            "; muxport cannot see whether a command on the far side of a carrier (ssh, "
            "sudo, a container) waits for input: capture_pane shows what the pane asks"
        )
    return answer(
        run, "timed_out", found.lines, found.started, not found.started, max_lines, wait, note=note
    )


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
            started.append(await ctx.tmux.start_client("wait-for", channel))
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
    with anyio.CancelScope(shield=True):
        with anyio.move_on_after(2):
            await ctx.tmux.send_batched("wait-for", "-S", "--", channel)
            await process.wait()
        await ctx.tmux.stop_client(process)


@tool(
    title="Run a shell command",
    reach="pane-command",
    effects=["observe", "change"],
    outputs=["terminal-content", "tmux-metadata"],
    secrets=True,
    untrusted=True,
)
async def run_shell_command(ctx: ToolContext, args: RunArgs) -> RunAnswer:
    """Run a command in a pane's shell and return its exit status and only its output.

    Works in bash, zsh, dash, ksh and fish panes, and through ssh, su, sudo and
    containers. The command runs in a subshell (cd, export, exit do not outlive it).
    Locally it is never typed (a private script is sourced, completion through tmux
    wait-for); elsewhere a compact typed frame is used (the answer's frame says which).
    A run that outlives the timeout answers timed_out, one blocked on a prompt answers
    waiting_for_input (echo_off: a secret; ask the user to type it); both give a run_id
    for wait_for_run.
    """
    runs = table(ctx)
    timeout = effective_timeout(args.timeout)
    run = runs.reserve(args.pane_id)
    waiter = None
    try:
        run.frame = frames.prepare(
            args.command, ctx.tmux.binary, ctx.tmux.socket_path, args.suppress_history
        )
        waiter, cohort = await waiter_and_check(ctx, run.frame.channel, args.pane_id)
        # Read while the shell has the terminal: the run has ended when it has it again.
        program, group = cohort.command, foreground_group(cohort.pane_pid)
        reach = choose(args.frame, program, cohort.pane_pid, args.pane_id)
        if reach.frame == "typed":
            await release_waiter(ctx, waiter, run.frame.channel)
            waiter = None
            run.frame.remove()
            run.frame = None
            await typed_run.dispatch(
                ctx, run, args.command, args.suppress_history, reach, cohort.pane_pid, group
            )
            return await settle(ctx, run, timeout, args.max_lines)
        if reach.kind == "fish":
            run.frame = frames.for_fish(run.frame, ctx.tmux.binary, ctx.tmux.socket_path)
        await check_input(ctx, args.pane_id, exactly_one=True)  # again, right before dispatch
        line = run.frame.typed_line(args.suppress_history) + "\r"
        try:
            sent = await ctx.tmux.run(
                ("display-message", "-p", "-t", args.pane_id, "#{pane_pid} #{pane_tty}"),
                ("send-keys", "-t", args.pane_id, "-l", "--", line),
            )
        except ToolError as error:
            error.delivery = "possibly_sent"
            raise
        run.started = time.monotonic()
        run.dispatched = True
    except BaseException:
        with anyio.CancelScope(shield=True):
            if waiter is not None and run.frame is not None and not run.dispatched:
                await release_waiter(ctx, waiter, run.frame.channel)
            elif waiter is not None:
                await ctx.tmux.stop_client(waiter)
            if run.frame is not None and not run.dispatched:
                run.frame.remove()
        if not run.dispatched:
            runs.release(run)
        raise
    pane_pid, _, tty = sent.stdout.strip().partition(" ")
    if pane_pid.isdigit():
        run.view = View(int(pane_pid), group, tty)

    async def follow() -> None:
        await watch(ctx.tmux, run, waiter, pane_pid, program, group)

    ctx.spawn(follow)
    return await settle(ctx, run, timeout, args.max_lines)


@tool(
    title="Wait for a run",
    reach="none",
    effects=["observe"],
    outputs=["terminal-content", "tmux-metadata"],
    secrets=True,
    untrusted=True,
)
async def wait_for_run(ctx: ToolContext, args: WaitRunArgs) -> RunAnswer:
    """Wait for a run that run_shell_command started and return its exit status and output.

    Works after the run ended too (finished runs are kept an hour, at most 64 runs);
    it never sends anything to a pane.
    """
    run = table(ctx).get(args.run_id)
    return await settle(ctx, run, effective_timeout(args.timeout), args.max_lines)


TOOLS = [run_shell_command, wait_for_run]

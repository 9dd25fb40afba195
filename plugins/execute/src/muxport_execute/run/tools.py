"""run_shell_command and wait_for_run: one call runs a command and returns its output and
exit status; a run that outlives its wait can be collected later (docs/run-outcomes.md).
The run itself is its driver's (run/driver.py); the answer is run/answer.py's.
"""

from __future__ import annotations

from muxport import COMMAND, READ, Args, MaxLines, PaneId, Timeout, ToolContext, tool
from muxport.policy import effective_timeout
from pydantic import Field

from muxport_execute.frames.choose import Requested
from muxport_execute.run import driver
from muxport_execute.run.answer import RunAnswer, settle
from muxport_execute.run.table import RunTable

MAX_COMMAND = 65_536


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
        default=True, description="keep the line out of shell history (best effort)"
    )
    frame: Requested = Field(
        default="auto",
        description="auto: local if the shell reads muxport's files, else typed",
    )


class WaitRunArgs(Args):
    run_id: str = Field(
        pattern=r"^run-[0-9a-f]{16}$",
        max_length=20,
        description="the run_id a run_shell_command answer gave",
    )
    timeout: Timeout = None
    max_lines: MaxLines = None


@tool(COMMAND, title="Run a shell command")
async def run_shell_command(runs: RunTable, ctx: ToolContext, args: RunArgs) -> RunAnswer:
    """Run a command in a pane's shell and return its exit status and only its output.

    Any POSIX shell or fish, also through ssh, su, sudo, containers; runs in a subshell.
    outcome: completed; timed_out or waiting_for_input (answer, then wait_for_run);
    stopped (C-z); not_started; lost; pane_gone; server_gone; error. The note names
    the recovery. Refused, nothing typed: line_not_empty, not_at_prompt, starting.
    """
    timeout = effective_timeout(args.timeout)
    # an OSError (a full disk writing the frame) answers with what the system refused
    run = await driver.start(
        ctx, runs, args.pane_id, args.command, args.suppress_history, args.frame
    )
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

"""run_shell_command and wait_for_run: one call runs a command and returns its output and
exit status; a run that outlives its wait can be collected later (docs/run-outcomes.md).
The run itself is its driver's (run/driver.py); the answer is run/answer.py's.
"""

from __future__ import annotations

from muxport import Args, Capability, MaxLines, PaneId, Timeout, ToolContext, tool
from muxport.policy import Limits
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
        description="for the pane's shell; may span lines",
    )
    timeout: Timeout = None
    max_lines: MaxLines = None
    suppress_history: bool = Field(
        default=True, description="keep the line out of shell history"
    )
    frame: Requested = Field(
        default="auto",
        description="typed: through the terminal (ssh, su)",
    )


class WaitRunArgs(Args):
    run_id: str = Field(
        pattern=r"^run-[0-9a-f]{16}$",
        max_length=20,
        description="from run_shell_command",
    )
    timeout: Timeout = None
    max_lines: MaxLines = None


@tool(Capability.COMMAND, title="Run a shell command")
async def run_shell_command(runs: RunTable, ctx: ToolContext, args: RunArgs) -> RunAnswer:
    """Run a command in a pane's shell and return its exit status and only its output.

    Any POSIX shell or fish, also over ssh, su, sudo, containers, in a subshell. outcome:
    completed; timed_out, waiting_for_input (then wait_for_run); stopped; not_started;
    lost; pane_gone; server_gone; error. The note names the next step.
    """
    timeout = Limits.wait(args.timeout)
    # an OSError (a full disk writing the frame) answers with what the system refused
    run = await driver.start(
        ctx, runs, args.pane_id, args.command, args.suppress_history, args.frame
    )
    return await settle(ctx, run, timeout, args.max_lines)


# A read, and read-only (issue 30): it only waits for a run and collects it; none of its
# arguments changes anything (no interrupt: a stuck run is send_keys C-c's). Its own
# reads (a look at the pane, a far host's look) go through the hook check; the run's
# watcher is run_shell_command's (docs/plugin-contract.md, "Kinds").
@tool(
    Capability.READ.replace(output_classes=["terminal-content", "tmux-metadata"]),
    title="Wait for a run",
)
async def wait_for_run(runs: RunTable, ctx: ToolContext, args: WaitRunArgs) -> RunAnswer:
    """Wait for a run of run_shell_command; return its exit status and output (same outcomes)."""
    run = runs.get(args.run_id)
    return await settle(ctx, run, Limits.wait(args.timeout), args.max_lines)


TOOLS = [run_shell_command, wait_for_run]

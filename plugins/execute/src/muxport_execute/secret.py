"""request_secret: a run waits for a password; the person types it on a one-time page and
muxport types it into that pane (docs/asking.md, "Secrets"). The secret never reaches the
model: not in an answer, a note, a log line, the audit log, a tmux buffer or a file.

Only for a run on this machine: the check that the same process still waits with echo off
reads this machine's /proc (host/input_wait.py), right before the secret is typed.
"""

from __future__ import annotations

import anyio
from muxport import Args, Capability, Refused, Result, ToolContext, tool
from pydantic import Field

from muxport_execute.frames.sight import FarSight, LocalSight
from muxport_execute.host.input_wait import Reader
from muxport_execute.run.table import Run, RunTable

LOOK_SECONDS = 3.0  # input_wait needs BOUND (0.5 s) of the same reader; a few looks more


class SecretArgs(Args):
    run_id: str = Field(pattern=r"^run-[0-9a-f]{16}$", max_length=20)


class SecretSent(Result):
    run_id: str
    pane_id: str
    sent: bool


async def _secret_reader(ctx: ToolContext, run: Run) -> Reader | None:
    """The process of the run reading the terminal with echo off right now, if any (on this
    machine only: the same process is checked again in its ``/proc`` before typing)."""
    if run.final or not isinstance(run.view, LocalSight):
        return None
    run.view.ready()
    with anyio.move_on_after(LOOK_SECONDS):
        reading = await run.view.until_reading(ctx)
        return reading if reading.echo_off else None
    return None


def _not_waiting(run: Run) -> Refused:
    far = isinstance(run.view, FarSight) and not run.final
    where = " on a far host (muxport cannot check that host's terminal)" if far else ""
    return Refused(
        f"run {run.run_id} in {run.pane_id} is not waiting for a secret{where}; nothing was "
        "asked or sent. wait_for_run shows what it waits for (waiting_for_input with "
        "echo_off: a secret prompt)",
        code="not_waiting_for_secret", data={"run_id": run.run_id, "pane_id": run.pane_id},
    )


async def _prompt(ctx: ToolContext, pane_id: str) -> str:
    out = await ctx.tmux.run(("capture-pane", "-p", "-t", pane_id))
    shown = [line.strip() for line in out.lines if line.strip()]
    return shown[-1][:200] if shown else "a secret"


@tool(Capability.INPUT, title="Ask the user for a secret")
async def request_secret(runs: RunTable, ctx: ToolContext, args: SecretArgs) -> SecretSent:
    """For a run waiting_for_input with echo_off: the user types the secret on a one-time
    page; muxport types it in. It never reaches you."""
    run = runs.get(args.run_id)
    reading = await _secret_reader(ctx, run)
    if reading is None:
        raise _not_waiting(run)
    prompt = await _prompt(ctx, run.pane_id)
    question = (f"muxport asks: pane {run.pane_id} (run {run.run_id}) waits for a secret "
                f"({prompt}). Type it on the page that opens: it goes to that pane only, "
                "never to the assistant.")
    refused = Refused(
        f"this client cannot open a page for the user (no URL-mode elicitation); ask the user "
        f"to type the secret into {run.pane_id} themselves, then call wait_for_run with run_id "
        f"{run.run_id}; never ask for the secret or send it yourself",
        code="cannot_ask_user", data={"run_id": run.run_id, "pane_id": run.pane_id},
    )
    # keyed by the run, not the wording: the prompt line read again on a retry may differ
    secret = await ctx.ask_secret(refused, question, f"pane {run.pane_id} asks: {prompt}",
                              about=f"secret for {run.run_id}")
    try:
        again = await _secret_reader(ctx, run)
        state = await ctx.tmux.run(
            ("display-message", "-p", "-t", run.pane_id, "#{pane_in_mode}#{pane_dead}"))
        if again is None or again.pid != reading.pid or state.lines[-1].strip() != "00":
            raise Refused(
                f"the prompt in {run.pane_id} changed while the user typed (not the same process "
                "waiting with echo off); the secret was not sent. wait_for_run shows what the "
                "run waits for now", code="prompt_changed",
                data={"run_id": run.run_id, "pane_id": run.pane_id})
        # -l: the secret as text, never read as key names; one invocation, nothing between
        await ctx.tmux.run(("send-keys", "-t", run.pane_id, "-l", "--", secret.reveal()),
                           ("send-keys", "-t", run.pane_id, "Enter"))
    finally:
        secret.drop()
    return SecretSent(run_id=run.run_id, pane_id=run.pane_id, sent=True,
                      note=f"call wait_for_run with run_id {run.run_id} for its exit status")


TOOLS = [request_secret]

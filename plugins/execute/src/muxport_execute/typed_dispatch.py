"""Dispatching a typed run (typed_frame.py): the checks before anything is typed, the
probe where the far shell is unknown, the typed line, then its watcher (typed_run.py).

Order (docs/run-outcomes.md, "Typed frames"): a full-screen program or a carrier asking
for a secret ends the run ``not_started`` before any look at the line; then the far
line is checked (typed_check.py: refused, nothing typed); only then is the probe typed,
and the frame once a shell has answered it.
"""

from __future__ import annotations

import dataclasses

from muxport import ToolContext
from muxport.policy import check_input

from muxport_execute.input_wait import View, echo_off
from muxport_execute.line_state import PendingInput
from muxport_execute.reach import Reach
from muxport_execute.runs import Ending, Run
from muxport_execute.typed_check import check_far_line
from muxport_execute.typed_frame import Kind, new_typed_frame
from muxport_execute.typed_run import (
    PROBE_BOUND,
    TypedRun,
    not_started_note,
    probe,
    type_line,
    watch_typed,
)


def _not_started(run: Run, reason: str, what: str, lines: list[str]) -> None:
    note = not_started_note(run.pane_id, what, lines)
    run.end(Ending("not_started", note=note, reason=reason, pane_lines=lines))


async def dispatch(
    ctx: ToolContext,
    run: Run,
    command: str,
    suppress_history: bool,
    reach: Reach,
    pane_pid: str,
    shell_group: int | None,
    pending: PendingInput,
    shell: str,
) -> None:
    """Type the run's frame (after the probe, where the far shell is unknown) and start
    watching it; where nothing should be typed, or no shell answered the probe, the run
    ends ``not_started``, and a line that is not a far shell's empty prompt is refused.
    ``shell`` is the pane's foreground program (the carrier, or su's far shell)."""
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", run.pane_id, "#{alternate_on} #{session_id} #{pane_tty}")
    )
    alternate, session_id, tty = [*out.stdout.split(), "", "", ""][:3]
    frame = new_typed_frame(reach.kind or "posix")
    kinds: tuple[Kind, ...] = ("posix", "fish") if reach.kind is None else (reach.kind,)
    for each in kinds:
        dataclasses.replace(frame, kind=each).typed_line(command, suppress_history)  # length
    typed = TypedRun(frame, command, carrier=reach.carrier)
    run.frame, run.frame_name = typed, "typed"
    if reach.kind is None:
        if alternate == "1":
            return _not_started(
                run, "full_screen",
                "the pane shows a full-screen program (alternate screen) on the far side of "
                f"{reach.carrier}, not a shell prompt: nothing was typed", [],
            )
        if echo_off(tty):
            return _not_started(
                run, "secret_prompt",
                "the pane's terminal reads a line with echo off (the carrier asks for a "
                "password or passphrase; ask the user to type it): nothing was typed", [],
            )
    await check_far_line(ctx, run.pane_id, session_id, shell, pending)
    if reach.kind is None:
        kind, lines = await probe(ctx, run.pane_id, pane_pid, session_id)
        if kind is None:
            return _not_started(
                run, "no_shell_answer",
                f"no shell answered the probe line within {PROBE_BOUND:g}s (the far side may "
                "still be connecting, ask for a password, or run a program)", lines,
            )
        typed.frame = dataclasses.replace(frame, kind=kind)
    await check_input(ctx, run.pane_id, exactly_one=True)  # again, right before dispatch
    await type_line(ctx, run.pane_id, typed.typed_line(suppress_history))
    run.dispatch()
    if reach.local_view and pane_pid.isdigit():
        run.view = View(int(pane_pid), shell_group, tty)

    async def follow() -> None:
        await watch_typed(ctx, run, typed, pane_pid, session_id)

    ctx.spawn(follow)

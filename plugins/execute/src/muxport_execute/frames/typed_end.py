"""How a typed run ends other than by its end marker (docs/run-outcomes.md, "Typed
frames"), decided from the pane's output and its foreground program:

- the far shell's ``:x:`` marker without an end marker: the frame was killed (``lost``,
  ``reason: frame_gone``); with 147-150 it was stopped (bash and dash go on with the
  typed list when a job stops), which ``job_state`` tells;
- the far shell's job lines about the frame: stopped by C-z (``stopped``), resumed by
  ``fg`` (running again);
- the carrier (``ssh``, ``sudo``...) no longer in the foreground, or su's far shell gone
  (``/proc``): the far side ended under the run (``lost``, ``reason: far_side_gone``).
"""

from __future__ import annotations

from typing import Literal

from muxport_execute.frames.base import STOPPED_JOB
from muxport_execute.frames.strategy import Ending
from muxport_execute.frames.typed_text import TypedFrame
from muxport_execute.host import procs
from muxport_execute.host.input_wait import View
from muxport_execute.notes import program_name
from muxport_execute.pane.view import Observation

STOP_STATUSES = frozenset({128 + 19, 128 + 20, 128 + 21, 128 + 22})  # SIGSTOP TSTP TTIN TTOU
SHOWN = 5  # lines of the pane quoted in a note


def shown(lines: list[str]) -> list[str]:
    rows = [row.rstrip() for row in lines]
    while rows and not rows[-1]:
        rows.pop()
    return rows[-SHOWN:]


def job_state(frame: TypedFrame, lines: list[str]) -> Literal["stopped", "running"] | None:
    """What the far shell's newest job line about this frame says, after its start marker.

    A job line quotes the frame's source, so it holds the nonce's halves (``H1 H2``):
    ``[1]+ Stopped ( trap ...`` (bash, dash, ksh), ``zsh: suspended ( trap ...``; after
    ``fg`` the shell prints the job again (bash, dash) or ``continued`` (zsh). fish cuts
    its job lines short (``fish: Job 1, 'sh -c (printf '(trap \\047printf…' has
    stopped``), before the halves: the start of the typed fish frame stands for them. A
    row that says stopped must say it first (``STOPPED_JOB``): other rows naming the job
    (a fish frame's ``ps`` lists its argv, which holds both) do not stop it.
    """
    rows = [row.rstrip() for row in lines]
    starts = [i for i, row in enumerate(rows) if row == frame.start_marker]
    after = rows[starts[-1] + 1 :] if starts else []
    jobs = [row for row in after if frame.is_job(row)]
    if not jobs:
        return None
    return "stopped" if STOPPED_JOB.match(jobs[-1]) else "running"


def far_end(
    pane_id: str, carrier: str, view: View | None, frame: TypedFrame, started: bool,
    seen: Observation,
) -> Ending | None:
    """The run's ending when the far side ended under it or its frame was killed
    (``carrier``: the carrier in the foreground when typed; "": the far shell was)."""
    what = None
    now = program_name(seen.command)
    if carrier and now and now != carrier:
        what = (
            f"{carrier} is no longer the pane's foreground program (the connection or "
            f"session ended; the pane runs {now} now)"
        )
    elif view is not None and view.shell_group and not procs.alive(view.shell_group):
        what = "the far shell ended (its process is gone)"
    if what is not None:
        return Ending("lost", note=(
            f"{what}: the command's exit status is unknown, and what it started may still run "
            f"on the far side. capture_pane {pane_id} shows the pane; the next "
            "run_shell_command runs in what the pane holds now (to reach the far side again, "
            "start the carrier again)"), reason="far_side_gone", pane_lines=shown(seen.lines))
    left = frame.left_status(seen.lines) if started else None
    if left is None or left in STOP_STATUSES:
        return None
    return Ending("lost", note=(
        f"the typed frame in {pane_id} ended without its exit status (the far shell saw "
        f"{left}: killed by a signal, or replaced by exec); anything it started may still run "
        "there: capture_pane shows the pane, and the next run_shell_command can run there"
    ), reason="frame_gone", pane_lines=shown(seen.lines))

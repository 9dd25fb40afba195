"""Following a local run until it ends (docs/run-outcomes.md, "How a run ends").

Completion is the frame's ``wait-for -S`` on the run's own channel (a fresh name per
run: a killed waiter leaves a ghost that would swallow a later signal on a reused
name). tmux also wakes a waiter when the server dies, so a wake proves nothing by
itself: the status file, then one observation decide the outcome. Beside the waiter a
monitor looks at the pane and the frame's process, quickly at first:

- no ``started`` file, and the shell has read the typed line and waits for the
  terminal again on two looks in a row (``shell_reads.took_line``: vi command mode, a
  ``read``, a file it could not read), or ``START_BOUND`` seconds after typing where
  ``/proc`` cannot tell: ``not_started`` (the typed line did not run; the frame is made
  unable to run the command first);
- the frame's process stopped (C-z): ``stopped`` until it runs again (``fg``);
- the frame's job runs while the shell has the terminal (``bg``), on two looks in a row:
  ``background`` until it has the terminal again (``fg``); neither holds the pane;
- the frame's process gone without a status (SIGKILL, ``exec``): ``lost``;
- a shell the command started (``exec bash``) has the terminal and waits at its prompt,
  on two looks in a row: ``lost``, ``shell_took_over`` (it never ends by itself, C-c
  does not end it, and the pane takes commands there: the run gives the pane back);
- a status file without a signal (the frame's tmux client failed): the run ended.

Once the frame has started and its shell has opened ``cmd``, a look removes the command
text (``Frame.drop_command``): it is on the disk only while the shell has not read it.

A fault in here (tmux failing or missing, ``OSError``, a full disk) is raised to the
run's driver, which ends the run with outcome ``error``; it never reaches the server.
"""

from __future__ import annotations

import time

import anyio
from anyio.abc import Process
from muxport import TmuxUnresponsive

from muxport_execute.frames.diagnose import not_started
from muxport_execute.frames.local_end import Watch, conclude, passing
from muxport_execute.frames.strategy import Emit, Ending
from muxport_execute.host import procs
from muxport_execute.notes import gone_note
from muxport_execute.pane.view import Gone, observe, probe

# Where /proc cannot tell that the shell took the line without running it (another
# user's shell, no /proc), the start marker is waited for this long.
START_BOUND = 3.0
DECLINED_LOOKS = 2
PROBE_FIRST, PROBE_MAX, STOPPED_PROBE, PANE_EVERY = 0.05, 0.5, 0.2, 0.5

async def look(w: Watch, pane: bool, emit: Emit) -> Ending | bool:
    """One look of the monitor: an ending, True when the frame has ended, else False.

    Only ``pane`` looks ask tmux (a killed pane never signals); the others read files
    and ``/proc``: a short run costs no tmux process beyond its own.
    """
    try:
        state = await probe(w.tmux, w.pane_id, w.pane_pid) if pane else "alive"
    except TmuxUnresponsive:
        return False  # a stopped server: keep watching, it may resume (docs/reliability.md)
    if state != "alive":
        return Ending(state, w.frame.read_status(), note=gone_note(state, w.pane_id, w.run_id))
    if not w.started:
        # observed before has_started: a frame that starts after the look is caught there
        w.declined = w.declined + 1 if w.took_line() else 0
        late = w.declined >= DECLINED_LOOKS or time.monotonic() - w.began >= START_BOUND
        if not w.frame.has_started() and late and w.frame.cancel_start():
            bound = None if w.declined >= DECLINED_LOOKS else START_BOUND
            try:
                return await not_started(w.tmux, w.pane_id, w.frame.token, w.shell, bound)
            except TmuxUnresponsive:  # the next look asks again (cancel_start still holds)
                return False
        if not (w.frame.has_started() or late):
            return False
        w.started = True
        emit("started")
    if not w.dropped:  # the shell has opened cmd: the command text goes (local_files.py)
        w.dropped = w.frame.drop_command()
    # whole lines nothing read are not ours (the shell read the run's line before the frame
    # started); drained while the frame still runs (asked after the queue), the run read them
    queued = procs.typed_ahead(w.tty) > 0
    ended = w.frame.has_ended()
    if queued != w.saw_typing and (queued or not ended):
        w.saw_typing = queued
        emit("typed" if queued else "read")
    if ended:
        return True
    job = w.job()
    if job in ("stopped", "running") and w.stopped != (job == "stopped"):
        w.stopped = job == "stopped"
        emit("stopped" if w.stopped else "resumed")
    if job == "running" and not w.stopped:
        behind = w.in_background()
        w.behind = w.behind + 1 if behind else 0
        if w.background != behind and (w.behind >= DECLINED_LOOKS or not behind):
            w.background = behind  # a job the person sent to the background holds no pane
            emit("background" if behind else "resumed")
        shell = w.shell_took_over()
        w.took_over = w.took_over + 1 if shell is not None else 0
        if shell is not None and w.took_over >= DECLINED_LOOKS:
            return await taken_over(w, shell)
    if job == "gone" and not w.frame.has_ended():
        return Ending(
            "lost",
            note=(
                f"the run's frame in {w.pane_id} ended without an exit status (killed, or "
                "replaced by exec); anything it started may still run: capture_pane shows the "
                "pane, and the next run_shell_command can run there"
            ),
            reason="frame_gone",
        )
    return w.frame.has_ended()


async def taken_over(w: Watch, pid: int) -> Ending | bool:
    """The ending of a run whose command handed the terminal to an interactive shell,
    with the output so far (the pane is read: False while tmux does not answer)."""
    try:
        seen = await observe(w.tmux, w.pane_id, w.pane_pid)
    except TmuxUnresponsive:
        return False
    found = w.frame.extract(seen.lines)
    name = procs.command_name(pid) or "a shell"
    return Ending(
        "lost", None, found.lines, lines_missed=not found.started, reason="shell_took_over",
        note=(
            f"the command of run {w.run_id} handed {w.pane_id}'s terminal to an interactive "
            f"{name} (pid {pid}: `exec {name}`, or `{name} -i`), now at its prompt; it does not "
            "end by itself (C-c does not end it), so the run's exit status will never be "
            f"known. The pane takes commands in that shell: the next run_shell_command runs "
            f"there, and send_keys [\"exit\", \"Enter\"] to {w.pane_id} leaves it"
        ),
    )


async def follow(w: Watch, emit: Emit) -> Ending:
    """Wait for the run's signal (or another ending), then conclude it."""
    gone: Gone | None = None
    ending: Ending | None = None
    async with anyio.create_task_group() as group:

        async def signalled(waiter: Process) -> None:
            await waiter.wait()
            group.cancel_scope.cancel()

        async def monitor() -> None:
            nonlocal gone, ending
            delay, probed = PROBE_FIRST, anyio.current_time()
            while True:
                await anyio.sleep(delay)
                delay = min(STOPPED_PROBE if w.stopped else PROBE_MAX, delay * 1.5)
                pane = anyio.current_time() - probed >= PANE_EVERY
                probed = anyio.current_time() if pane else probed
                try:
                    seen = await look(w, pane, emit)
                except Exception as fault:  # out of descriptors for a moment: look again
                    if not passing(fault):
                        raise
                    seen = False
                if isinstance(seen, Ending):
                    if seen.outcome in ("pane_gone", "server_gone"):
                        gone = "server_gone" if seen.outcome == "server_gone" else "pane_gone"
                    else:
                        ending = seen
                if seen is not False:
                    group.cancel_scope.cancel()
                    return

        if w.waiter is not None:
            group.start_soon(signalled, w.waiter)
        group.start_soon(monitor)
    await stop(w)
    return ending or await conclude(w, gone)


async def stop(w: Watch) -> None:
    """End the run's wait-for client (signalled, or no longer needed)."""
    waiter, w.waiter = w.waiter, None
    if waiter is not None:
        await w.tmux.stop_client(waiter)

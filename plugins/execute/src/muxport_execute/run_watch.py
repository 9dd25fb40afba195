"""Watching one run until it ends (docs/run-outcomes.md, "How a run ends").

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
- the frame's process gone without a status (SIGKILL, ``exec``): ``lost``;
- a status file without a signal (the frame's tmux client failed): the run ended.

Any fault in here (tmux failing or missing, ``OSError``, a full disk) ends this run
with outcome ``error``; it never reaches the server.
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass, field

import anyio
from anyio.abc import Process
from muxport import Tmux, TmuxUnresponsive, ToolError

from muxport_execute import procs, raw_bytes, shell_reads
from muxport_execute.diagnose import not_started
from muxport_execute.notes import stopped_recovery
from muxport_execute.pane_view import Gone, Observation, observe, probe
from muxport_execute.runs import Ending, Run, RunFrame

# Where /proc cannot tell that the shell took the line without running it (another
# user's shell, no /proc), the start marker is waited for this long.
START_BOUND = 3.0
DECLINED_LOOKS = 2
PROBE_FIRST, PROBE_MAX, STOPPED_PROBE, PANE_EVERY = 0.05, 0.5, 0.2, 0.5
# tmux may handle the frame's signal before it has read the pane's last bytes, and the
# shell may not have reaped the frame yet: look again (quickly at first, then every
# SETTLE_STEP) until both are done, for at most SETTLE_BOUND. Once the shell has the
# terminal, a missing end marker means the screen was rewritten: MARKER_GRACE more.
SETTLE_DELAYS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05)
SETTLE_STEP, SETTLE_BOUND, MARKER_GRACE = 0.1, 10.0, 0.3


@dataclass
class Watch:
    """One run's watcher: the pane's processes as they were when the line was typed."""

    tmux: Tmux
    run: Run
    frame: RunFrame
    waiter: Process | None  # the frame's wait-for client; None: the monitor alone decides
    pane_pid: str
    shell: str  # the foreground program's name when typed
    group: int | None  # the terminal's foreground process group then (the shell's)
    before: set[int] = field(default_factory=set)  # the shell's children then
    alternate: str = ""  # the alternate screen's saved cursor then
    tty: str = ""
    read_before: int | None = None  # the shell's rchar right before typing
    typed: int = 0  # bytes typed
    frame_pid: int | None = None
    declined: int = 0  # looks in a row that saw the shell take the line without running it
    copy: raw_bytes.Copy | None = None  # the pane's raw output, copied (raw_bytes.py)

    @property
    def shell_pid(self) -> int | None:
        return self.group

    def job(self) -> str:
        """The frame subshell's state: running, stopped, gone or unknown."""
        if self.frame_pid is None and self.shell_pid is not None:
            new = procs.children(self.shell_pid) - self.before
            self.frame_pid = min(new) if new else None
            if self.frame_pid is None and self.shell_back():
                # Asked only once the frame has started, so it was the shell's child: it
                # was killed before the first look could name it.
                return "gone"
        if self.frame_pid is None:
            return "unknown"
        seen = procs.stat(self.frame_pid)
        if seen is None or seen.state in ("Z", "X"):
            return "gone"
        return "stopped" if seen.state in ("T", "t") else "running"

    def took_line(self) -> bool:
        """The shell read the typed line and waits for the terminal again, with no new
        child: it did not run it (the caller checks the frame has not started)."""
        if not shell_reads.took_line(self.shell_pid, self.tty, self.read_before, self.typed):
            return False
        return self.shell_back() and not procs.children(self.group or 0) - self.before

    def shell_back(self) -> bool:
        """The shell that had the terminal when the line was typed has it again."""
        return self.group is not None and procs.foreground_group(self.pane_pid) == self.group


def gone_note(state: Gone, run: Run) -> str:
    if state == "server_gone":
        return (
            f"the tmux server stopped while run {run.run_id} ran; list_sessions shows "
            "whether one is running again"
        )
    return (
        f"pane {run.pane_id} was killed, died or was respawned while run {run.run_id} "
        "ran; list_panes shows the panes that exist"
    )


def shell_has_terminal(w: Watch, seen: Observation) -> bool:
    """Whether the pane's shell (not a child of it) is in the foreground again.

    The frame's subshell is a fork of the shell, so tmux names it like the shell; and
    between its exit and the shell reaping it, tmux names the pane's start command. The
    process group that had the terminal when the run was dispatched tells them apart.
    """
    if seen.command != w.shell:
        return False
    return w.group is None or procs.foreground_group(w.pane_pid) in (w.group, None)


async def look(w: Watch, pane: bool) -> Ending | bool:
    """One look of the monitor: an ending, True when the frame has ended, else False.

    Only ``pane`` looks ask tmux (a killed pane never signals); the others read files
    and ``/proc``: a short run costs no tmux process beyond its own.
    """
    run = w.run
    try:
        state = await probe(w.tmux, run.pane_id, w.pane_pid) if pane else "alive"
    except TmuxUnresponsive:
        return False  # a stopped server: keep watching, it may resume (docs/reliability.md)
    if state != "alive":
        return Ending(state, w.frame.read_status(), note=gone_note(state, run))
    if run.state == "dispatched":
        # observed before has_started: a frame that starts after the look is caught there
        w.declined = w.declined + 1 if w.took_line() else 0
        if w.frame.has_started():
            run.start()
        elif w.declined >= DECLINED_LOOKS or run.elapsed() >= START_BOUND:
            if w.frame.cancel_start():
                bound = None if w.declined >= DECLINED_LOOKS else START_BOUND
                return await not_started(w.tmux, run.pane_id, w.frame, w.shell, bound)
            run.start()
    if run.state not in ("started", "stopped"):
        return False
    if w.frame.has_ended():
        return True
    job = w.job()
    if job == "stopped":
        run.stop()
    elif job == "running":
        run.resume()
    elif job == "gone" and not w.frame.has_ended():
        return Ending(
            "lost",
            note=(
                f"the run's frame in {run.pane_id} ended without an exit status (killed, or "
                "replaced by exec); anything it started may still run: capture_pane shows the "
                "pane, and the next run_shell_command can run there"
            ),
            reason="frame_gone",
        )
    return w.frame.has_ended()


async def conclude(w: Watch, gone: Gone | None) -> None:
    """Read the status and the output of a run that ended, and record them.

    The run counts as ended once the shell has the terminal back (the frame's subshell
    signals just before it exits; until the shell reaps it, tmux names the pane's
    foreground program wrongly, and the next run's shell check would fail) and its end
    marker is on the screen, or, if the screen was rewritten, MARKER_GRACE later.
    """
    run, frame = w.run, w.frame
    status = frame.read_status()
    if gone is not None:
        run.end(Ending(gone, status, note=gone_note(gone, run)))
        return
    seen = Observation("alive", [])
    deadline = anyio.current_time() + SETTLE_BOUND
    back: float | None = None
    for look_number in itertools.count():
        delay = SETTLE_DELAYS[look_number] if look_number < len(SETTLE_DELAYS) else SETTLE_STEP
        await anyio.sleep(delay)
        seen = await observe(w.tmux, run.pane_id, w.pane_pid)
        if seen.state != "alive":
            run.end(Ending(seen.state, status, note=gone_note(seen.state, run)))
            return
        now = anyio.current_time()
        if shell_has_terminal(w, seen):
            back = now if back is None else back
            if frame.extract(seen.lines).ended or now - back >= MARKER_GRACE:
                break
        if now >= deadline:
            break
    found = frame.extract(seen.lines)
    status = frame.read_status() if status is None else status
    if status is None:
        status = found.status
    rewritten = seen.rows_below_cursor or not found.ended or found.out_of_order
    alternate = bool(w.alternate) and seen.alternate != w.alternate
    framed = found.started and found.ended and not rewritten and not alternate
    note = None
    if status is None:
        note = (
            "the frame recorded no exit status (its private files were removed, or the "
            "shell was killed); capture_pane shows what the pane holds"
        )
    elif alternate:
        note = (
            "the command used the alternate screen (a full-screen program): what it showed "
            "there is not in the pane, only what it printed on the main screen is here"
        )
    elif rewritten:
        note = (
            "the command moved the cursor or rewrote the screen (cursor movement, a scroll "
            "region, a clear), so some output may be missing or out of order; redirect to a "
            "file (cmd > out.txt) to get it all"
        )
    elif not found.started:
        note = (
            "the start of the output is no longer in the pane (it outgrew the pane's "
            "history, or the pane was cleared): these are the newest lines it still holds; "
            "redirect to a file (cmd > out.txt) to keep everything"
        )
    lines, invalid = found.lines, None
    if w.copy is not None and found.started and found.ended:
        invalid, lines = await raw_bytes.check(w.copy, lines)
    if w.copy is not None:  # closed before the answer: the next run may copy again
        await raw_bytes.close(w.tmux, w.copy)
        w.copy = None
        if invalid and note is None:
            note = raw_bytes.NOTE.format(count=invalid)
    run.end(Ending("completed", status, lines, framed, not framed, note,
                   invalid_utf8=invalid))


async def watch(w: Watch) -> None:
    """Background task: wait for the run's signal (or another ending), then conclude it."""
    run = w.run
    gone: Gone | None = None
    try:
        async with anyio.create_task_group() as group:

            async def signalled(waiter: Process) -> None:
                await waiter.wait()
                group.cancel_scope.cancel()

            async def monitor() -> None:
                nonlocal gone
                delay, probed = PROBE_FIRST, anyio.current_time()
                while True:
                    await anyio.sleep(delay)
                    delay = min(PROBE_MAX if run.state != "stopped" else STOPPED_PROBE, delay * 1.5)
                    pane = anyio.current_time() - probed >= PANE_EVERY
                    probed = anyio.current_time() if pane else probed
                    seen = await look(w, pane)
                    if isinstance(seen, Ending):
                        if seen.outcome in ("pane_gone", "server_gone"):
                            gone = "server_gone" if seen.outcome == "server_gone" else "pane_gone"
                        else:
                            run.end(seen)
                    if seen is not False:
                        group.cancel_scope.cancel()
                        return

            if w.waiter is not None:
                group.start_soon(signalled, w.waiter)
            group.start_soon(monitor)
        await stop(w)
        if not run.final:
            await conclude(w, gone)
    except Exception as fault:  # the run ends; the server and every other run go on
        run.end(fault_ending(run, fault))
    finally:
        with anyio.CancelScope(shield=True):
            await stop(w)
            if w.copy is not None:
                with contextlib.suppress(ToolError):
                    await raw_bytes.close(w.tmux, w.copy)
            if not run.final:  # muxport is shutting down
                run.end(Ending("error", None, note="muxport stopped watching this run",
                               reason="shutdown"))


async def stop(w: Watch) -> None:
    if w.waiter is not None:
        await w.tmux.stop_client(w.waiter)


def fault_ending(run: Run, fault: Exception) -> Ending:
    while isinstance(fault, ExceptionGroup):  # raised through the task group
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


def stopped_note(run: Run) -> str:
    return stopped_recovery(run.pane_id, run.run_id)

"""Watching one run: the private ``wait-for`` channel, pane liveness, and the final capture.

Completion is the frame's ``wait-for -S`` on the run's own channel (a fresh name per
run: a killed waiter leaves a ghost that would swallow a later signal on a reused
name). tmux also wakes a waiter when the server dies, so a wake proves nothing by
itself: the status file, then one observation (pane state and capture in ONE tmux
invocation) decide between completed, pane_gone and server_gone. A slow probe of the
pane runs beside the waiter because a killed pane never signals.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

import anyio
from anyio.abc import Process
from muxport import SEP, Tmux, ToolError, classify

from muxport_execute.frame import Extracted, extract
from muxport_execute.runs import Run

Gone = Literal["pane_gone", "server_gone"]
State = Literal["alive", Gone]
PROBE = f"#{{pane_dead}}{SEP}#{{pane_pid}}{SEP}#{{pane_current_command}}"
PROBE_FIRST, PROBE_MAX = 0.1, 1.0
# tmux may handle the frame's signal before it has read the pane's last bytes, and the
# shell may not have reaped the frame yet: look again (quickly at first, then every
# SETTLE_STEP) until both are done, for at most SETTLE_BOUND (a loaded machine can take
# hundreds of milliseconds to schedule the shell).
SETTLE_DELAYS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05)
SETTLE_STEP, SETTLE_BOUND = 0.1, 10.0


@dataclass(frozen=True)
class Observation:
    state: State
    lines: list[str]
    command: str = ""


def _classify(stderr: str) -> State | None:
    fault = classify(stderr)
    return "server_gone" if fault == "gone" else "pane_gone" if fault == "missing" else None


def _state(first_line: str, pane_pid: str) -> State:
    dead, _, rest = first_line.partition(SEP)
    pid = rest.partition(SEP)[0]
    if dead == "1" or (pane_pid and pid != pane_pid):
        return "pane_gone"  # dead (remain-on-exit) or respawned: not the shell we typed into
    return "alive"


async def probe(tmux: Tmux, pane_id: str, pane_pid: str) -> State:
    out = await tmux.run(("display-message", "-p", "-t", pane_id, PROBE), check=False)
    if out.returncode != 0:
        state = _classify(out.stderr)
        if state is None:
            raise tmux.failure(out)
        return state
    return _state(out.lines[0] if out.lines else "", pane_pid)


async def observe(tmux: Tmux, pane_id: str, pane_pid: str) -> Observation:
    """The pane's state and its whole joined capture, in one tmux invocation."""
    out = await tmux.run(
        ("display-message", "-p", "-t", pane_id, PROBE),
        ("capture-pane", "-p", "-J", "-t", pane_id, "-S", "-"),
        check=False,
    )
    if out.returncode != 0:
        state = _classify(out.stderr)
        if state is None:
            raise tmux.failure(out)
        return Observation(state, [])
    lines = out.lines
    first = lines[0] if lines else ""
    return Observation(_state(first, pane_pid), lines[1:], first.split(SEP)[-1])


def foreground_group(pane_pid: str) -> int | None:
    """The process group that owns the terminal of the pane's process (Linux ``/proc``).

    None where there is no ``/proc`` or the process is gone: callers then rely on the
    name tmux reports.
    """
    try:
        with open(f"/proc/{int(pane_pid)}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        group = int(fields[5])  # state ppid pgrp session tty_nr tpgid
    except (OSError, ValueError, IndexError):
        return None
    return group if group > 0 else None


def shell_has_terminal(seen: Observation, shell: str, pane_pid: str, group: int | None) -> bool:
    """Whether the pane's shell (not a child of it) is in the foreground again.

    The frame's subshell is a fork of the shell, so tmux names it like the shell; and
    between its exit and the shell reaping it, tmux names the pane's start command. The
    process group that had the terminal when the run was dispatched tells them apart.
    """
    if seen.command != shell:
        return False
    return group is None or foreground_group(pane_pid) in (group, None)


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


async def conclude(
    tmux: Tmux, run: Run, pane_pid: str, shell: str, group: int | None, gone: Gone | None
) -> None:
    """Read the status and the output of a run that ended, and record them.

    The run counts as ended once its end marker is on the screen and the pane's shell
    has the terminal back (the frame's subshell signals just before it exits; until the
    shell reaps it, tmux names the pane's foreground program wrongly, and the next
    run's shell check would fail).
    """
    frame = run.frame
    assert frame is not None
    status = frame.read_status()
    if gone is not None:
        run.finish(gone, [], False, True, status, gone_note(gone, run))
        return
    found = Extracted([], False, False, None)
    deadline = anyio.current_time() + SETTLE_BOUND
    for look in itertools.count():
        await anyio.sleep(SETTLE_DELAYS[look] if look < len(SETTLE_DELAYS) else SETTLE_STEP)
        seen = await observe(tmux, run.pane_id, pane_pid)
        if seen.state == "pane_gone" or seen.state == "server_gone":
            run.finish(seen.state, [], False, True, status, gone_note(seen.state, run))
            return
        found = extract(frame, seen.lines)
        settled = found.ended and shell_has_terminal(seen, shell, pane_pid, group)
        if settled or anyio.current_time() >= deadline:
            break
    if status is None:
        status = found.status
    note = None
    if status is None:
        note = (
            "the frame recorded no exit status (its private files were removed, or the "
            "shell was killed); capture_pane shows what the pane holds"
        )
    elif not found.started:
        note = (
            "the start of the output is no longer in the pane (it outgrew the pane's "
            "history, or the pane was cleared): these are the newest lines it still holds; "
            "redirect to a file (cmd > out.txt) to keep everything"
        )
    run.finish(
        "completed", found.lines, found.started and found.ended, not found.started, status, note
    )


async def watch(
    tmux: Tmux, run: Run, waiter: Process, pane_pid: str, shell: str, shell_group: int | None
) -> None:
    """Background task: wait for the run's signal (or its pane's end), then conclude it."""
    frame = run.frame
    assert frame is not None
    gone: Gone | None = None
    try:
        async with anyio.create_task_group() as group:

            async def signalled() -> None:
                await waiter.wait()
                group.cancel_scope.cancel()

            async def liveness() -> None:
                nonlocal gone
                delay = PROBE_FIRST
                while True:
                    await anyio.sleep(delay)
                    delay = min(PROBE_MAX, delay * 1.5)
                    state = await probe(tmux, run.pane_id, pane_pid)
                    # A status file without a signal: the frame's tmux client failed.
                    if state == "pane_gone" or state == "server_gone":
                        gone = state
                    if gone or (delay >= PROBE_MAX and frame.status_path.exists()):
                        group.cancel_scope.cancel()
                        return

            group.start_soon(signalled)
            group.start_soon(liveness)
        await tmux.stop_client(waiter)
        await conclude(tmux, run, pane_pid, shell, shell_group, gone)
    except ToolError as error:
        run.finish(
            "completed",
            [],
            False,
            True,
            frame.read_status(),
            f"the run ended but its output could not be read: {error.message}",
        )
    finally:
        with anyio.CancelScope(shield=True):
            await tmux.stop_client(waiter)
            frame.remove()
            if not run.done.is_set():  # muxport is shutting down
                run.finish("completed", [], False, True, None, "muxport stopped watching this run")

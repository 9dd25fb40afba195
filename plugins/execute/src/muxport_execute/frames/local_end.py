"""A local run's watch (frames/local_follow.py) and its end: the pane's processes as
they were when the line was typed, and the status and output read once it ended.

tmux may handle the frame's signal before it has read the pane's last bytes, and the
shell may not have reaped the frame yet: ``conclude`` looks again (quickly at first,
then every ``SETTLE_STEP``) until both are done, for at most ``SETTLE_BOUND``. Once the
shell has the terminal, a missing end marker means the screen was rewritten:
``MARKER_GRACE`` more.
"""

from __future__ import annotations

import errno
import itertools
from dataclasses import dataclass, field

import anyio
from anyio.abc import Process
from muxport import Tmux, TmuxUnresponsive, ToolError

from muxport_execute.frames.base import resumed_note
from muxport_execute.frames.local_files import Frame
from muxport_execute.frames.strategy import Ending
from muxport_execute.host import procs, shell_reads
from muxport_execute.notes import REWRITTEN, gone_note, is_posix_shell, missing_start
from muxport_execute.pane import raw_bytes
from muxport_execute.pane.line_state import EDITOR_SHELLS
from muxport_execute.pane.view import Gone, Observation, observe

SETTLE_DELAYS = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05)
SETTLE_STEP, SETTLE_BOUND, MARKER_GRACE = 0.1, 10.0, 0.3
STALLED_STEP = 0.5  # between looks while tmux does not answer (a stall does not count)


def passing(fault: BaseException) -> bool:
    """A fault a run's watch outlives: tmux stopped or its socket moved, or muxport out of
    file descriptors for a moment (EMFILE, ENFILE: docs/reliability.md). The run goes on
    in its pane; the next look asks again rather than lose track of it."""
    if isinstance(fault, TmuxUnresponsive):
        return True
    if isinstance(fault, ToolError):
        return fault.code == "resource_exhausted"
    return isinstance(fault, OSError) and fault.errno in (errno.EMFILE, errno.ENFILE)


@dataclass
class Watch:
    """One local run's watcher: the pane's processes as they were when the line was typed."""

    tmux: Tmux
    pane_id: str
    run_id: str
    frame: Frame
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
    began: float = 0.0  # when the line was typed (anyio's clock)
    started: bool = False  # the frame has started (emitted)
    stopped: bool = False  # the frame's process is stopped (emitted)
    dropped: bool = False  # the command text is removed (the shell opened cmd)
    saw_typing: bool = False  # keys typed into the pane wait unread (emitted: typed, read)
    took_over: int = 0  # looks in a row that saw a shell the run started at its prompt
    behind: int = 0  # looks in a row that saw the run's job in the background (bg)
    background: bool = False  # the run's job runs in the background (emitted)

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

    def in_background(self) -> bool:
        """The run's job runs while the pane's shell has the terminal (``bg`` after C-z):
        it is a job of its own (a shell with job control), not in the foreground."""
        if self.frame_pid is None or self.group is None:
            return False
        seen = procs.stat(self.frame_pid)
        if seen is None or seen.pgrp == self.group:
            return False
        return procs.foreground_group(self.pane_pid) == self.group

    def shell_took_over(self) -> int | None:
        """A shell the run started (``exec bash``, ``bash -i``) that has the terminal, in a
        process group of its own, and waits at its prompt for a command line (not in a
        ``read``): its pid. Such a run never ends by itself, and C-c does not end it."""
        leader = procs.foreground_group(self.pane_pid)
        if leader is None or self.frame_pid is None or leader in (self.group, self.frame_pid):
            return None
        name = procs.command_name(leader)
        if not is_posix_shell(name) or not procs.descends(leader, self.frame_pid):
            return None
        if not shell_reads.waits_for_terminal(leader, self.tty):
            return None
        if shell_reads.pending_read(leader, self.tty):  # dash's read: one byte at a time
            return None
        if name in EDITOR_SHELLS and procs.canonical(self.tty) is not False:
            return None  # its line editor keeps the terminal raw: canonical is a read
        return leader

    def shell_back(self) -> bool:
        """The shell that had the terminal when the line was typed has it again."""
        return self.group is not None and procs.foreground_group(self.pane_pid) == self.group



def shell_has_terminal(w: Watch, seen: Observation) -> bool:
    """Whether the pane's shell (not a child of it) is in the foreground again.

    The frame's subshell is a fork of the shell, so tmux names it like the shell; and
    between its exit and the shell reaping it, tmux names the pane's start command. The
    process group that had the terminal when the run was dispatched tells them apart.
    """
    if seen.command != w.shell:
        return False
    return w.group is None or procs.foreground_group(w.pane_pid) in (w.group, None)


async def _status(frame: Frame) -> int | None:
    """The status the frame wrote, read again while muxport is out of descriptors."""
    while True:
        try:
            return frame.read_status()
        except OSError as fault:
            if not passing(fault):
                raise
            await anyio.sleep(STALLED_STEP)


async def conclude(w: Watch, gone: Gone | None) -> Ending:
    """The status and the output of a run that ended.

    The run counts as ended once the shell has the terminal back (the frame's subshell
    signals just before it exits; until the shell reaps it, tmux names the pane's
    foreground program wrongly, and the next run's shell check would fail) and its end
    marker is on the screen, or, if the screen was rewritten, MARKER_GRACE later.
    """
    frame = w.frame
    status = await _status(frame)
    if gone is not None:
        return Ending(gone, status, note=gone_note(gone, w.pane_id, w.run_id))
    seen = Observation("alive", [])
    deadline = anyio.current_time() + SETTLE_BOUND
    back: float | None = None
    for look_number in itertools.count():
        delay = SETTLE_DELAYS[look_number] if look_number < len(SETTLE_DELAYS) else SETTLE_STEP
        await anyio.sleep(delay)
        try:
            seen = await observe(w.tmux, w.pane_id, w.pane_pid)
        except Exception as fault:  # stopped, hung, out of descriptors: read once it answers
            if not passing(fault):
                raise
            deadline = anyio.current_time() + SETTLE_BOUND
            await anyio.sleep(STALLED_STEP)
            continue
        if seen.state != "alive":
            return Ending(seen.state, status, note=gone_note(seen.state, w.pane_id, w.run_id))
        now = anyio.current_time()
        if shell_has_terminal(w, seen):
            back = now if back is None else back
            if frame.extract(seen.lines).ended or now - back >= MARKER_GRACE:
                break
        if now >= deadline:
            break
    found = frame.extract(seen.lines)
    status = await _status(frame) if status is None else status
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
        note = REWRITTEN
    elif not found.started:
        note = missing_start(seen.history_full)
    if found.hidden:  # said beside any other note: the output is the command's alone
        note = "; ".join(filter(None, (note, resumed_note(found.hidden))))
    lines, invalid = found.lines, None
    if w.copy is not None and found.started and found.ended:
        invalid, lines = await raw_bytes.check(w.copy, lines)
    copy, w.copy = w.copy, None
    if copy is not None:  # closed before the answer: the next run may copy again
        while True:
            try:
                await raw_bytes.close(w.tmux, copy)
                break
            except Exception as fault:  # stopped, its socket moved: once it answers
                if not passing(fault):
                    raise
                await anyio.sleep(STALLED_STEP)
        if invalid and note is None:
            note = raw_bytes.NOTE.format(count=invalid)
    outgrew = not found.started and seen.history_full
    return Ending("completed", status, lines, framed, not framed, note, invalid_utf8=invalid,
                  outgrew=outgrew)

"""What the pane's shell itself is reading, from Linux ``/proc`` (docs/run-outcomes.md,
"Before typing" and "How a run ends").

- ``pending_read``: a shell without a line editor (dash) reads its prompt's line in one
  big ``read(2)`` of the terminal, but its ``read`` builtin reads one byte at a time (it
  must not consume past the newline). Blocked in ``read(tty, buf, 1)`` with the terminal
  in canonical mode: a pending ``read``, which would take the typed line as data.
- ``between_commands``: a shell with a line editor (bash, zsh) switches the terminal to
  raw mode only once its prompt is ready; before that (its prompt hooks, its rc file,
  builtins all of them, so no child is in the foreground) the terminal is canonical as
  in a ``read``. Running, or blocked in anything but the terminal, it is between
  commands, not reading.
- ``took_line``: after the line was typed, the shell has read at least its bytes
  (``rchar`` in ``/proc/<pid>/io`` grew by that much), nothing is left in the terminal's
  input queue, it has no new child and it is blocked waiting for the terminal again:
  its line editor or a ``read`` took the line without running it (vi command mode, a
  ``read``, a file it could not read). The frame did not start and will not.

Every reader answers "unknown" (``None`` or False) where ``/proc`` is missing or the
process belongs to someone we may not look at: the start bound then decides, as before.
"""

from __future__ import annotations

import fcntl
import os
import struct
import termios

from muxport_execute.host import procs

READ, SELECTS_POLLS = 0, {7, 23, 270, 271}  # read; poll, select, pselect6, ppoll (x86_64)


def _syscall_text(pid: int) -> str | None:
    """``/proc/<pid>/syscall`` ("running", or the call and its arguments); None: unreadable."""
    try:
        with open(f"/proc/{int(pid)}/syscall") as f:
            return f.read()
    except (OSError, ValueError):
        return None


def _syscall(pid: int) -> tuple[int, list[int]] | None:
    """The syscall ``pid`` is blocked in and its arguments (None: running, or unreadable)."""
    fields = (_syscall_text(pid) or "").split()
    if len(fields) < 7 or not fields[0].isdigit():
        return None
    return int(fields[0]), [int(value, 16) for value in fields[1:7]]


def _reads_tty(pid: int, fd: int, tty: str) -> bool:
    try:
        return os.stat(f"/proc/{int(pid)}/fd/{fd}").st_rdev == os.stat(tty).st_rdev
    except (OSError, ValueError):
        return False


def pending_read(shell_pid: int | None, tty: str) -> bool:
    """Whether the shell is in a ``read`` builtin that reads the terminal byte by byte."""
    if shell_pid is None or not tty.startswith("/dev/"):
        return False
    call = _syscall(shell_pid)
    if call is None or call[0] != READ or call[1][2] != 1:
        return False
    return _reads_tty(shell_pid, call[1][0], tty) and procs.canonical(tty) is True


def bytes_read(pid: int | None) -> int | None:
    """``rchar``: every byte ``pid`` has read so far (terminal, files, pipes)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{int(pid)}/io", "rb") as f:
            for row in f:
                if row.startswith(b"rchar:"):
                    return int(row.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def queued(tty: str) -> int | None:
    """Bytes in the terminal's input queue that nothing has read yet (``TIOCINQ``)."""
    try:
        fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        raw = fcntl.ioctl(fd, termios.TIOCINQ, b"\0\0\0\0")
        return int(struct.unpack("i", raw)[0])
    except OSError:
        return None
    finally:
        os.close(fd)


def waits_for_terminal(shell_pid: int, tty: str) -> bool:
    """Blocked reading the terminal, or in select/poll (a line editor waiting for a key)."""
    call = _syscall(shell_pid)
    if call is None:
        return False
    number, args = call
    if number == READ:
        return _reads_tty(shell_pid, args[0], tty)
    return number in SELECTS_POLLS


def between_commands(shell_pid: int, tty: str) -> bool | None:
    """Whether a shell whose terminal is in canonical mode is between commands (running
    its prompt hooks or its rc file, or waiting for something other than the terminal)
    rather than reading the terminal; None where ``/proc`` does not tell."""
    text = _syscall_text(shell_pid)
    if text is None:
        return None
    return text.startswith("running") or not waits_for_terminal(shell_pid, tty)


def took_line(shell_pid: int | None, tty: str, read_before: int | None, typed: int) -> bool:
    """Whether the shell has read the ``typed`` bytes and waits for the terminal again
    (the caller checks that the frame has no process and did not start)."""
    if shell_pid is None or read_before is None or not tty.startswith("/dev/"):
        return False
    now = bytes_read(shell_pid)
    if now is None or now - read_before < typed or queued(tty) != 0:
        return False
    return waits_for_terminal(shell_pid, tty)


def foreground_job(pid: int | str, tty: str) -> str | None:
    """The newest program of a job of the pane's shell that has the terminal although
    tmux names it like the shell (a subshell: what a killed muxport's run leaves), or None.

    A job's leader never leads the session; it runs a command when it has a child and does
    not wait for the terminal itself (a nested or su's interactive shell at its prompt
    waits for the terminal)."""
    leader = procs.foreground_group(pid)
    seen = procs.stat(leader) if leader is not None else None
    if leader is None or seen is None or seen.session == leader:
        return None
    newest, kids = leader, procs.children(leader)
    if not kids or waits_for_terminal(leader, tty):
        return None
    while kids:
        newest = max(kids)
        kids = procs.children(newest)
    return procs.command_name(newest) or "a program"

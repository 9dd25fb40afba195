"""What Linux ``/proc`` and the pane's terminal say about a run's processes (docs/run-outcomes.md).

Every helper answers ``None`` (or an empty set) where ``/proc`` is missing or the
process is gone, so callers fall back to what tmux reports. All of them read small
files or call ``tcgetattr`` or ``ioctl``: none blocks.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sys
import termios
from dataclasses import dataclass

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# Out of file descriptors, /proc cannot be read, which says nothing about the process: raised,
# never taken for "gone" (a run's watch looks again: frames/local_end.passing).
EXHAUSTED = (errno.EMFILE, errno.ENFILE)


@dataclass(frozen=True)
class Stat:
    """The fields of ``/proc/<pid>/stat`` a run needs."""

    state: str  # R, S, D, T (stopped), t, Z (exited, not reaped), X
    pgrp: int
    session: int
    tty_nr: int  # the controlling terminal's device number
    tpgid: int  # the terminal's foreground process group
    start_ticks: int
    ppid: int = 0


def stat(pid: int) -> Stat | None:
    """The one parser of ``/proc/<pid>/stat`` (``None``: no such process, or no /proc)."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as file:
            fields = file.read().rpartition(b")")[2].split()
        # state ppid pgrp session tty_nr tpgid ... starttime is the 20th after ")"
        return Stat(
            fields[0].decode(), int(fields[2]), int(fields[3]), int(fields[4]), int(fields[5]),
            int(fields[19]), int(fields[1]),
        )
    except OSError as exc:
        if exc.errno in EXHAUSTED:
            raise
        return None
    except (ValueError, IndexError):
        return None


def foreground_group(pid: int | str) -> int | None:
    """The foreground process group of the terminal of process ``pid``."""
    try:
        seen = stat(int(pid))
    except ValueError:
        return None
    return seen.tpgid if seen is not None and seen.tpgid > 0 else None


def children(pid: int) -> set[int]:
    """The direct children of ``pid`` (every thread's list)."""
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{int(pid)}/task"):
            with open(f"/proc/{int(pid)}/task/{task}/children", "rb") as file:
                found.update(int(word) for word in file.read().split())
    except OSError as exc:
        if exc.errno in EXHAUSTED:
            raise
    except ValueError:
        pass
    return found


def descends(pid: int, ancestor: int) -> bool:
    """Whether ``pid`` is ``ancestor`` or one of its descendants (a few stats)."""
    for _ in range(64):
        if pid == ancestor:
            return True
        seen = stat(pid)
        if seen is None or seen.ppid <= 1:
            return False
        pid = seen.ppid
    return False


def alive(pid: int) -> bool:
    """Running or stopped: not exited (a zombie counts as exited)."""
    seen = stat(pid)
    return seen is not None and seen.state not in ("Z", "X")


def age(pid: int) -> float | None:
    """Seconds since ``pid`` started."""
    seen = stat(pid)
    if seen is None:
        return None
    try:
        with open("/proc/uptime", "rb") as file:
            uptime = float(file.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return max(0.0, uptime - seen.start_ticks / _TICKS)


def command_name(pid: int) -> str:
    try:
        with open(f"/proc/{int(pid)}/comm", "rb") as file:
            return file.read().decode("utf-8", "replace").strip()
    except (OSError, ValueError):
        return ""


def foreground_program(pid: int | str) -> str | None:
    """The name (``comm``) of the newest process of the foreground job of process
    ``pid``'s terminal: the program a person sees there, where tmux names the job's
    leader (a run's frame subshell) or a script's interpreter (xonsh as python3).

    Followed down from the group's leader through the children in that group, newest
    first: a pipeline's last program (``seq | less``: less), ``man``'s pager."""
    leader = foreground_group(pid)
    if leader is None:
        return None
    newest = leader
    while kids := [kid for kid in children(newest) if _group(kid) == leader]:
        newest = max(kids)
    return script_name(newest) or command_name(newest) or None


INTERPRETERS = ("python", "perl", "ruby", "node")


def script_name(pid: int) -> str | None:
    """The script an interpreter runs (``python3 /usr/bin/xonsh``: xonsh; a script started
    through ``#!/usr/bin/env python3`` is named python3 in ``comm`` too), or None: not an
    interpreter, or no script (a REPL, ``-c``, ``-m``)."""
    words = command_line(pid)
    first = words[0].rsplit("/", 1)[-1] if words else ""
    if not first.startswith(INTERPRETERS) or len(words) < 2 or words[1].startswith("-"):
        return None
    return words[1].rsplit("/", 1)[-1] or None


def _group(pid: int) -> int | None:
    seen = stat(pid)
    return seen.pgrp if seen is not None else None


def command_line(pid: int) -> list[str]:
    """The arguments ``pid`` was started with (empty: gone, or unreadable)."""
    try:
        with open(f"/proc/{int(pid)}/cmdline", "rb") as file:
            words = file.read().split(b"\0")
    except (OSError, ValueError):
        return []
    return [word.decode("utf-8", "surrogateescape") for word in words[:-1]]


def typed_ahead(tty: str) -> int:
    """Bytes of whole lines typed into the terminal ``tty`` that nothing has read yet
    (``FIONREAD``; 0 when unreadable). Opened as ``local_modes`` does, never read."""
    if not tty.startswith("/dev/"):
        return 0
    try:
        fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return 0
    try:
        queued = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
        return int.from_bytes(queued, sys.byteorder)
    except OSError:
        return 0
    finally:
        os.close(fd)


def local_modes(tty: str) -> int | None:
    """The terminal ``tty``'s termios local modes (``c_lflag``), None when unreadable.
    Opened without becoming its controlling terminal, and never read or written."""
    if not tty.startswith("/dev/"):
        return None
    try:
        fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return int(termios.tcgetattr(fd)[3])
    except termios.error:
        return None
    finally:
        os.close(fd)


def canonical(tty: str) -> bool | None:
    """Whether the terminal ``tty`` is in canonical (cooked) mode.

    A line editor (readline, zle) puts the terminal in raw mode while it reads a line;
    canonical mode with a shell in the foreground means the shell is reading some
    other way (``read``), or has no line editor.
    """
    lflag = local_modes(tty)
    return None if lflag is None else bool(lflag & termios.ICANON)

"""When a blocked process counts as reading the terminal: the rules of ``waiting_for_input``
(docs/run-outcomes.md, "How a run ends"), apart from where the facts come from.

A run's process waits for input when it is blocked in ``read``/``readv`` on the pane's
terminal, or in ``select``/``poll`` whose every watched descriptor is that terminal (a
REPL's line editor; a download that also polls a socket is not waiting) or, for ``poll``,
the process's own wake-up (an eventfd, a named FIFO: fish's ``read``).

The facts are asked through three functions of a descriptor number or an address, so
that a run on this machine reads each one from ``/proc`` only when a rule needs it
(host/input_wait.py) and a run on a far server's host answers from what one far shell
gathered there (host/far_input.py).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

POLLIN = 0x1
# termios local modes of Linux (the same on x86_64 and arm64): a far host's, whatever
# this machine is
LINUX_ECHO = 0o10
LINUX_ICANON = 0o2

IsTty = Callable[[int], bool]  # the descriptor is the pane's terminal
Wakes = Callable[[int], bool]  # the descriptor is the process's own wake-up, not data
Memory = Callable[[int, int], bytes | None]  # ``size`` bytes of the process at an address


@dataclass(frozen=True)
class Calls:
    """The numbers of the system calls the rules know, on one architecture."""

    reads: frozenset[int]  # read, readv (fd, ...)
    selects: frozenset[int]  # select, pselect6 (nfds, readfds, writefds, exceptfds, ...)
    polls: frozenset[int]  # poll, ppoll (fds, nfds, ...)


X86_64 = Calls(frozenset({0, 19}), frozenset({23, 270}), frozenset({7, 271}))
ARM64 = Calls(frozenset({63, 65}), frozenset({72}), frozenset({73}))  # no select, no poll
CALLS = {"x86_64": X86_64, "aarch64": ARM64, "arm64": ARM64}


def watched_only_tty(
    call: int, args: list[int], calls: Calls, is_tty: IsTty, wakes: Wakes, memory: Memory
) -> bool:
    """Whether a process blocked in system call ``call`` (its six ``args``) waits for the
    terminal alone."""
    if call in calls.reads:
        return is_tty(args[0])
    if call in calls.selects:
        count, readfds = args[0], args[1]
        if not 0 < count <= 1024 or readfds == 0 or args[2] or args[3]:
            return False
        bitmap = memory(readfds, select_size(count))
        if bitmap is None:
            return False
        bits = int.from_bytes(bitmap, "little")
        fds = [fd for fd in range(count) if bits >> fd & 1]
        return bool(fds) and all(is_tty(fd) for fd in fds)
    if call in calls.polls:
        address, count = args[0], args[1]
        if not 0 < count <= 64:
            return False
        raw = memory(address, count * 8)
        if raw is None:
            return False
        entries = [struct.unpack_from("<iHH", raw, 8 * i) for i in range(count)]
        watched = [fd for fd, events, _ in entries if fd >= 0 and events & POLLIN]
        ttys = [fd for fd in watched if is_tty(fd)]
        return bool(ttys) and all(fd in ttys or wakes(fd) for fd in watched)
    return False


def select_size(count: int) -> int:
    """The bytes of a ``select`` descriptor set of ``count`` descriptors (whole longs)."""
    return (count + 63) // 64 * 8


def secret(lflag: int | None, echo: int, icanon: int) -> bool:
    """A line is read without being shown: ECHO off while ICANON is on (a password prompt;
    line editors and full-screen programs turn both off and echo for themselves)."""
    return lflag is not None and not lflag & echo and bool(lflag & icanon)

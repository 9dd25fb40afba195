"""Is a run waiting for input? Read from Linux ``/proc`` for runs on this machine.

A run waits for input when, for longer than ``BOUND`` seconds, the pane's terminal is
owned by the run (its foreground process group is not the shell's), no process of that
group is running, and one of them is blocked reading the pane's terminal
(host/input_rules.py: ``read``/``readv`` on it; ``select``/``poll`` watching it alone, or
beside the process's own wake-up). ``sleep 5`` sleeps in ``nanosleep`` and is never
reported.

``echo_off``: the terminal's termios has ECHO off while ICANON is on: a line is being
read without showing it (a password prompt). Line editors and full-screen programs turn
off both ECHO and ICANON and echo for themselves, so they are not secret prompts.

Every read here is a few small files under ``/proc`` per process; they run in one
thread of their own so that a slow or large ``/proc`` never stalls the event loop. Where
``/proc`` is missing or unreadable the answer is "not waiting": the run then simply
times out, as before. A run on a far server's host is looked at through tmux instead
(host/far_input.py), with the same rules and the same ``steady`` loop.
"""

from __future__ import annotations

import asyncio
import os
import stat as stat_module
import termios
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import anyio

from muxport_execute.host.input_rules import X86_64, secret, watched_only_tty
from muxport_execute.host.procs import local_modes, stat

BOUND = 0.5  # seconds a read must last before the run counts as waiting
STEP = 0.25  # seconds between looks


@dataclass(frozen=True)
class View:
    """What a local run's pane is made of, read at dispatch."""

    pane_pid: int
    shell_group: int | None
    tty: str


@dataclass(frozen=True)
class Reader:
    pid: int
    echo_off: bool
    name: str | None = None  # the reader's program, where this machine's /proc cannot say


DEV_TTY = os.makedev(5, 0)  # /dev/tty: the process's controlling terminal (sudo reads it)


def _is_tty(pid: int, fd: int, rdev: int) -> bool:
    try:
        opened = os.stat(f"/proc/{pid}/fd/{fd}").st_rdev
        if opened == DEV_TTY:
            seen = stat(pid)
            return seen is not None and seen.tty_nr == rdev  # the controlling terminal
        return opened == rdev
    except OSError:
        return False


def _wakes_itself(pid: int, fd: int) -> bool:
    """``fd`` is one of the process's own wake-ups rather than data: an eventfd, a signalfd
    or a named FIFO (fish's line editor polls the terminal beside two eventfds and a FIFO
    that tells it of universal variables: docs/run-outcomes.md, "How a run ends")."""
    try:
        target = os.readlink(f"/proc/{pid}/fd/{fd}")
        if target in ("anon_inode:[eventfd]", "anon_inode:[signalfd]"):
            return True
        # the descriptor's own inode: never a path lookup (a deleted FIFO, a stuck mount)
        return stat_module.S_ISFIFO(os.stat(f"/proc/{pid}/fd/{fd}").st_mode) and (
            not target.startswith("pipe:"))
    except OSError:
        return False


def _memory(pid: int, address: int, size: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/mem", "rb") as mem:
            mem.seek(address)
            data = mem.read(size)
    except (OSError, ValueError, OverflowError):
        return None
    return data if len(data) == size else None


def _watched_only_tty(pid: int, call: int, args: list[int], rdev: int) -> bool:
    return watched_only_tty(
        call, args, X86_64, lambda fd: _is_tty(pid, fd, rdev),
        lambda fd: _wakes_itself(pid, fd), lambda address, size: _memory(pid, address, size),
    )


def _blocked_on_tty(pid: int, rdev: int) -> bool:
    try:
        with open(f"/proc/{pid}/syscall") as f:
            fields = f.read().split()
    except OSError:
        return False
    if len(fields) < 7 or not fields[0].isdigit():
        return False  # "running" or unreadable
    call = int(fields[0])
    args = [int(value, 16) for value in fields[1:7]]
    return _watched_only_tty(pid, call, args, rdev)


def echo_off(tty: str) -> bool:
    """Whether the terminal reads a line without showing it (ECHO off, ICANON on)."""
    return secret(local_modes(tty), termios.ECHO, termios.ICANON)


def reader(view: View) -> Reader | None:
    """The process of the run that is blocked reading the terminal right now, if any."""
    try:
        shell = stat(view.pane_pid)
        rdev = os.stat(view.tty).st_rdev
    except OSError:
        return None
    group = shell.tpgid if shell is not None else 0
    if group <= 0 or group == view.shell_group:
        return None  # the shell has the terminal: the run is not in the foreground
    found: int | None = None
    try:
        entries = list(os.scandir("/proc"))
    except OSError:  # out of descriptors: this look sees nothing, the next looks again
        return None
    for entry in entries:
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            seen = stat(pid)
        except OSError:
            return None
        if seen is None or seen.pgrp != group:
            continue
        if seen.state in ("R", "D"):
            return None  # something of the run is working
        if found is None and _blocked_on_tty(pid, rdev):
            found = pid
    if found is None:
        return None
    return Reader(found, echo_off(view.tty))


# One thread of its own for every run's looks, started with the first run and kept: the
# looks are short, and runs in parallel must neither grow nor churn the server's thread
# pool (which the MCP SDK's stdio reader and writer use too).
_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="muxport-input-wait")


def start_thread() -> None:
    """Start the looking thread now (a no-op once it runs), so it exists before any look."""
    _EXECUTOR.submit(int)


Look = Callable[[], Awaitable[Reader | None]]


async def steady(look: Look) -> Reader:
    """Return once ``look`` has found the same process reading the terminal for ``BOUND``."""
    first: Reader | None = None
    since = 0.0
    while True:
        now = anyio.current_time()
        current = await look()
        if current is None or first is None or current.pid != first.pid:
            first, since = current, now
        elif now - since >= BOUND:
            return current
        await anyio.sleep(STEP)


async def until_reading(view: View) -> Reader:
    """Return once one process of the run has been reading the terminal for ``BOUND``."""
    loop = asyncio.get_running_loop()
    return await steady(lambda: loop.run_in_executor(_EXECUTOR, reader, view))

"""Is a run on a far server's host waiting for input? (``muxport --ssh``; docs/run-outcomes.md,
"A server on another host".)

The rules are a local run's (host/input_wait.py, host/input_rules.py); the facts come
from the far host's ``/proc`` and the pane's terminal, gathered there by one shell that
tmux starts (host/far_script.py): one tmux invocation per look, within the transport's
deadline. Before the line is typed, ``far_view`` reads the terminal's foreground group
(the shell's), as a local run reads it from ``/proc``.

Any failure (no ``/proc`` there: not Linux; a look cut short; the connection lost) is
"not waiting", and the run looks no more (``LookFailed``): the run then times out, as it
did before, and a look that hangs on the far host (a stuck mount) leaves at most one shell
there per run. At most ``LOOKS`` looks of one server run at once (``FarLooks``, the
server's: nothing is global, docs/architecture.md, "State"). Nothing of this machine's
``/proc`` or terminals is read for what the far host reports.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, field

import anyio
from muxport import Tmux, ToolContext

from muxport_execute.host.far_script import FarProcess, Sight, commands, parse
from muxport_execute.host.input_rules import (
    CALLS,
    LINUX_ECHO,
    LINUX_ICANON,
    secret,
    watched_only_tty,
)
from muxport_execute.host.input_wait import STEP, Reader, steady

log = logging.getLogger(__name__)
DEV_TTY = "/dev/tty"  # the process's controlling terminal (sudo reads it)
WAKE_UPS = ("anon_inode:[eventfd]", "anon_inode:[signalfd]")
LOOKS = 2  # far looks of one server at once (a local run's looks share one thread)
CUT_TRIES = 8  # later looks that delete the buffer of a look cut short
CUT_KEPT = 16  # such buffers remembered at most


class LookFailed(Exception):
    """A look at the far host failed: the run looks no more (its timeout applies)."""


@dataclass
class FarLooks:
    """The far looks of one server, shared by its runs (the run table holds it): at most
    ``LOOKS`` at once, and the buffers of looks cut short, with the tries left to each."""

    cut: OrderedDict[str, int] = field(default_factory=OrderedDict)
    _slots: anyio.CapacityLimiter | None = field(default=None, init=False, repr=False)

    def slots(self) -> anyio.CapacityLimiter:
        """The limiter of the server's looks, made at the first look (in the event loop)."""
        if self._slots is None:
            self._slots = anyio.CapacityLimiter(LOOKS)
        return self._slots

    def stale(self) -> list[str]:
        """The buffers of looks cut short that this look deletes first (each ``CUT_TRIES``
        times: a far shell that was slow may set its buffer after the first try)."""
        names = list(self.cut)
        for name in names:
            self.cut[name] -= 1
            if self.cut[name] <= 0:
                del self.cut[name]
        return names

    def cut_short(self, name: str) -> None:
        """Remember the buffer of a look cut short (the newest ``CUT_KEPT``)."""
        self.cut[name] = CUT_TRIES
        while len(self.cut) > CUT_KEPT:
            self.cut.popitem(last=False)


@dataclass
class _Looks:
    """One run's looks: the one in flight (waited for, never doubled), whether one failed."""

    in_flight: anyio.Event | None = None
    seen: list[Sight | None] = field(default_factory=list)  # the look in flight's answer
    failed: bool = False


@dataclass(frozen=True)
class FarView:
    """What a far run's pane is made of, read before its line was typed."""

    pane_pid: int
    shell_group: int  # the terminal's foreground group then: the shell's
    tty: str  # the far host's path of the pane's terminal (``#{pane_tty}``)
    server: FarLooks = field(compare=False, repr=False)  # the looks of the run's server
    looks: _Looks = field(default_factory=_Looks, compare=False, repr=False)


def _is_tty(process: FarProcess, fd: int, view: FarView, sight: Sight) -> bool:
    target = process.fds.get(fd)
    if target == DEV_TTY:
        return process.tty_nr == sight.tty_nr  # its controlling terminal is the pane's
    return target == view.tty


def _wakes(process: FarProcess, fd: int) -> bool:
    """An eventfd, a signalfd or a named FIFO (fish's ``read``), not an anonymous pipe."""
    target = process.fds.get(fd, "")
    if target in WAKE_UPS:
        return True
    return fd in process.fifos and not target.startswith("pipe:")


def _memory(process: FarProcess, size: int) -> bytes | None:
    """The bytes the script read where the rule looks (the same address and size)."""
    memory = process.memory
    return memory if memory is not None and len(memory) == size else None


def _reading(process: FarProcess, view: FarView, sight: Sight) -> bool:
    calls = CALLS.get(sight.arch)
    if calls is None or process.call is None or len(process.call) < 7:
        return False
    return watched_only_tty(
        process.call[0], process.call[1:7], calls,
        lambda fd: _is_tty(process, fd, view, sight), lambda fd: _wakes(process, fd),
        lambda address, size: _memory(process, size),
    )


def decide(sight: Sight, view: FarView) -> Reader | None:
    """The process of the run blocked reading the terminal in ``sight``, if any: the
    terminal's foreground group is not the shell's, none of it runs, one of it reads."""
    if sight.group <= 0 or sight.group == view.shell_group or sight.beyond:
        return None
    found: FarProcess | None = None
    for process in sight.processes.values():
        if process.state in ("R", "D"):
            return None  # something of the run is working
        if found is None and _reading(process, view, sight):
            found = process
    if found is None:
        return None
    echo_off = secret(sight.lflag, LINUX_ECHO, LINUX_ICANON)
    return Reader(found.pid, echo_off, found.name)


async def _gather(
    tmux: Tmux, server: FarLooks, pane_pid: int, shell_group: int | None, tty: str
) -> Sight | None:
    """One look (one tmux invocation, within the transport's deadline); None on any
    failure: a look never fails a run. Shielded: a look cut short would leave its buffer
    behind (the same invocation shows and deletes it); one cut by the deadline or an
    error still may, and the next look deletes it."""
    with anyio.CancelScope(shield=True):
        async with server.slots():
            found = commands(pane_pid, shell_group, tty, tmux.binary, tmux.socket_path,
                             server.stale())
            try:
                result = await tmux.run(*found, check=False)
            except Exception as exc:  # tmux_unresponsive, ssh_connection_lost, server_gone...
                log.debug("a far look at pane pid %s failed: %s", pane_pid, exc)
                server.cut_short(found[-1][-1])
                return None
    return parse(result.stdout)


async def far_view(tmux: Tmux, server: FarLooks, pane_pid: str, tty: str) -> FarView | None:
    """The pane's view, read right before its line is typed (a look of ``server``'s); None
    where the far host cannot show it (then the run's timeout applies)."""
    if not pane_pid.isdigit() or not tty.startswith("/dev/"):
        return None
    sight = await _gather(tmux, server, int(pane_pid), None, tty)
    if sight is None or sight.group <= 0:
        return None
    return FarView(int(pane_pid), sight.group, tty, server)


async def far_reader(ctx: ToolContext, view: FarView) -> Reader | None:
    """The process of the run reading the terminal right now, if any; ``LookFailed`` when
    a look failed (this one or an earlier one of the run). The look runs in the background
    (``ctx.spawn``): a run that ends meanwhile is answered at once, while its last look
    still finishes and deletes its buffer; a look still in flight is waited for, not
    doubled (a wait_for_run after a cut answer)."""
    looks = view.looks
    if looks.failed:
        raise LookFailed
    if looks.in_flight is None:
        seen: list[Sight | None] = [None]
        done = looks.in_flight = anyio.Event()
        looks.seen = seen

        async def look() -> None:
            try:
                seen[0] = await _gather(ctx.tmux, view.server, view.pane_pid, view.shell_group,
                                        view.tty)
            finally:
                looks.failed = looks.failed or seen[0] is None
                looks.in_flight = None
                done.set()

        try:
            ctx.spawn(look)
        except RuntimeError:  # no background task group (not serving): look here
            await look()
    else:
        done, seen = looks.in_flight, looks.seen
    await done.wait()
    if seen[0] is None:
        raise LookFailed
    return decide(seen[0], view)


async def until_far_reading(ctx: ToolContext, view: FarView) -> Reader:
    """Return once one process of the far run has been reading the terminal for ``BOUND``.
    The first look waits ``STEP``: a short run costs the far host no look at all."""
    await anyio.sleep(STEP)
    try:
        return await steady(lambda: far_reader(ctx, view))
    except LookFailed:
        await anyio.sleep_forever()  # the run's timeout applies
        raise

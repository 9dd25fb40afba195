"""The local frame as a strategy of the run's driver (docs/run-outcomes.md, "Frames"):
private files the pane's own shell sources, completion signalled on a tmux channel.

``prepare`` writes the files, then starts the run's ``wait-for`` client while the last
checks of the pane run: they are independent, and the client costs a tmux process
start (about 2 ms) the run would otherwise wait for. Nothing reaches the pane before
the checks pass. ``send`` reads the pane's facts, opens the run's copy of the raw
output and types the line in one tmux invocation.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import Process
from muxport import Refused, Tmux, ToolContext, ToolError
from muxport.policy import check_input

from muxport_execute.frames import kinds, local_files
from muxport_execute.frames.kinds import FrameKind, Order, PaneFacts, Reach
from muxport_execute.frames.local_end import Watch
from muxport_execute.frames.local_follow import follow, stop
from muxport_execute.frames.sight import LocalSight
from muxport_execute.frames.strategy import Emit, Ending, Extracted, FrameName
from muxport_execute.host import procs, shell_reads
from muxport_execute.host.input_wait import View
from muxport_execute.pane import raw_bytes, view
from muxport_execute.pane.line_state import PendingInput
from muxport_execute.pane.ready import check_line
from muxport_execute.pane.view import read_line

# What typing reads about the pane: its process, the alternate screen's saved cursor
# (it changes when a program enters that screen), its terminal, and a user's own pipe.
SENT: tuple[view.Fact, ...] = ("pid", "saved_x", "saved_y", "tty", "pipe")


@dataclass
class LocalStrategy:
    """One local run: the pane's shell (or fish) of muxport's own user sources its files."""

    pane_id: str
    run_id: str
    command: str
    suppress_history: bool
    fish: bool
    pane_pid: str  # as the checks saw it
    shell: str  # the foreground program's name (a POSIX shell, or fish)
    pending: PendingInput
    files: local_files.Frame | None = None
    waiter: Process | None = None
    watch: Watch | None = None
    tmux: Tmux | None = field(default=None, repr=False)
    room: int = 0  # cells left on the prompt's row when it was checked (pane/view.py)

    @property
    def name(self) -> FrameName:
        return "local"

    async def prepare(self, ctx: ToolContext) -> Ending | None:
        self.tmux = ctx.tmux
        self.files = local_files.prepare(
            self.command, ctx.tmux.binary, ctx.tmux.socket_path, self.suppress_history,
            self.fish,
        )
        channel = self.files.channel
        problems: list[Exception] = []

        async def start() -> None:
            try:
                self.waiter = await ctx.tmux.start_waiter(channel)
            except Exception as exc:  # raised below, outside the task group
                problems.append(exc)

        async with anyio.create_task_group() as group:
            group.start_soon(start)
            try:
                await self._checks(ctx)
            except Exception as exc:  # raised below, once the client has started
                problems.insert(0, exc)
        if problems:
            raise problems[0]
        return None

    async def _checks(self, ctx: ToolContext) -> None:
        """The input check again right before typing, beside a look at the line editor."""
        lines = []
        async with anyio.create_task_group() as group:

            async def again() -> None:
                await check_input(ctx, self.pane_id, exactly_one=True,
                                  what=f"the command {self.command!r}")

            async def line() -> None:
                lines.append(await read_line(ctx.tmux, self.pane_id))

            group.start_soon(again)
            group.start_soon(line)
        await check_line(ctx.tmux, self.pane_id, self.shell, lines[0], self.pending)
        self.room = lines[0].room

    async def send(self, ctx: ToolContext) -> LocalSight | None:
        assert self.files is not None
        # Read while the shell has the terminal: the run has ended when it has it again.
        group = procs.foreground_group(self.pane_pid)
        before = procs.children(group) if group else set()
        line = self.files.typed_line(self.suppress_history) + "\r"
        # the frame erases the typed line's row where the line fits on it (local_text.py)
        self.files.erase_echo(len(line) - 1 < self.room)
        read_before = shell_reads.bytes_read(group)
        sent = await ctx.tmux.run(
            view.ask(self.pane_id, SENT),
            raw_bytes.open_pipe(self.pane_id, self.files.directory),
            ("send-keys", "-t", self.pane_id, "-l", "--", line),
        )
        seen = view.answer(sent.stdout, SENT)[0]
        # the pane had no pipe of the user's: the one opened above is the run's copy
        copy = None if seen["pipe"] != "0" else raw_bytes.Copy(
            self.pane_id, self.files.directory, self.files.start_marker,
            f"{self.files.nonce}:e:")
        self.watch = Watch(
            ctx.tmux, self.pane_id, self.run_id, self.files, self.waiter, seen["pid"],
            self.shell, group, before, f"{seen['saved_x']},{seen['saved_y']}", seen["tty"],
            read_before, len(line.encode()), copy=copy, began=time.monotonic(),
        )
        self.waiter = None  # the watch owns it now
        if not seen["pid"].isdigit():
            return None
        return LocalSight(View(int(seen["pid"]), group, seen["tty"]))

    async def follow(self, emit: Emit) -> Ending:
        assert self.watch is not None
        return await follow(self.watch, emit)

    def extract(self, capture: list[str]) -> Extracted:
        assert self.files is not None
        return self.files.extract(capture)

    def scrub(self, rows: list[str]) -> list[str]:
        return rows if self.files is None else self.files.scrub(rows)

    async def close(self) -> None:
        """Idempotent, and safe to call twice at once (a shutdown beside the watch):
        each thing is taken before it is released."""
        waiter, self.waiter = self.waiter, None
        if waiter is not None and self.tmux is not None and self.files is not None:
            # Never signalled (refused or cancelled before typing): woken rather than only
            # killed, since a killed waiter stays registered on the tmux server.
            try:
                await self.tmux.wake_waiter(self.files.channel, waiter)
            except (ToolError, OSError):  # tmux fails: at least reap the client
                await self.tmux.stop_client(waiter)
        if self.watch is not None:
            await stop(self.watch)
            copy, self.watch.copy = self.watch.copy, None
            if copy is not None:
                with contextlib.suppress(ToolError):
                    await raw_bytes.close(self.watch.tmux, copy)
        if self.files is not None:
            self.files.remove(raw_bytes.raw_path(self.files.directory, self.pane_id).name)


def _applies(pane: PaneFacts) -> Reach | None:
    """A shell of muxport's own user on this machine (asked for by name: any user's); a
    carrier's far side or a far host's shell cannot read this machine's private files."""
    asked = pane.requested == "local"
    if pane.far_host is not None:
        if asked:
            raise Refused(
                f"the tmux server runs on {pane.far_host} (--ssh): the local frame needs a "
                "shell that reads muxport's private files on this machine, and a shell there "
                "cannot; use frame 'typed' (or 'auto')",
                data={"reason": "local_frame_unreachable", "pane_id": pane.pane_id,
                      "host": pane.far_host},
            )
        return None
    if pane.carrier:
        if asked:
            raise Refused(
                f"pane {pane.pane_id} is running {pane.program}: the local frame needs a shell "
                "that reads muxport's private files, and the far side of a carrier cannot; "
                "use frame 'typed' (or 'auto')",
                data={"reason": "local_frame_unreachable", "pane_id": pane.pane_id,
                      "command": pane.program},
            )
        return None
    if pane.shell is None or (not asked and pane.other_user):
        return None
    return Reach("local", pane.shell, True)


def _build(order: Order) -> LocalStrategy:
    return LocalStrategy(order.pane_id, order.run_id, order.command, order.suppress_history,
                         order.reach.kind == "fish", order.pane_pid, order.shell, order.pending)


def _facts() -> dict[str, Any]:
    shells = sorted(name for name in {"sh", "bash", "zsh", "dash", "ksh", "fish"}
                    if shutil.which(name))
    if "fish" in shells and "sh" not in shells:
        shells.remove("fish")  # the fish frame runs under sh
    return {
        "shells_installed": shells,
        "how": "private 0600 script sourced by the pane's shell; tmux wait-for",
        "servers": "on this machine only: a server on another host (--ssh) runs every "
        "command typed",
    }


kinds.register(FrameKind(
    "local", _applies, _build, rank=10, facts=_facts,
    # the typed line that sources a run's frame (local_text.py), and its end
    line=r"(?:\\\.|sh) '[^']*/mxr-[^/']+/run'", piece=r"-[a-z0-9_]{8}/run'$",
))

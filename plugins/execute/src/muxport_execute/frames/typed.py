"""The typed frame as a strategy of the run's driver (frames/typed_text.py): the checks
before anything is typed, the probe where the far shell is unknown, the typed line,
then its watcher (frames/typed_follow.py).

Order (docs/run-outcomes.md, "Typed frames"): a full-screen program or a carrier asking
for a secret ends the run ``not_started`` before any look at the line; then the far
line is checked (typed_check.py: refused, nothing typed); only then is the probe typed,
and the frame once a shell has answered it.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import anyio
from muxport import ToolContext
from muxport.policy import check_input

from muxport_execute.frames import kinds, typed_buffer
from muxport_execute.frames.base import extract
from muxport_execute.frames.kinds import FrameKind, Kind, Order, PaneFacts, Reach
from muxport_execute.frames.sight import FarSight, LocalSight, ProcessView
from muxport_execute.frames.strategy import Emit, Ending, Extracted, FrameName
from muxport_execute.frames.typed_check import check_far_line
from muxport_execute.frames.typed_end import shown
from muxport_execute.frames.typed_follow import TypedWatch, follow, look_until, type_line
from muxport_execute.frames.typed_text import (
    CARRIERS,
    MAX_TYPED,
    TypedFrame,
    new_typed_frame,
    probed,
)
from muxport_execute.frames.where import far_host
from muxport_execute.host import procs
from muxport_execute.host.far_input import FarLooks, FarView, far_view
from muxport_execute.host.input_wait import View, echo_off
from muxport_execute.notes import program_name, typed_not_started
from muxport_execute.pane import view
from muxport_execute.pane.line_state import PendingInput
from muxport_execute.pane.view import Observation

PROBE_BOUND = 5.0
BEFORE: tuple[view.Fact, ...] = ("alternate_on", "session", "tty")


def _not_started(pane_id: str, reason: str, what: str, lines: list[str]) -> Ending:
    note = typed_not_started(pane_id, what, lines)
    return Ending("not_started", note=note, reason=reason, pane_lines=lines)


@dataclass
class TypedStrategy:
    """One typed run: the line travels through the terminal to whatever shell reads it."""

    pane_id: str
    run_id: str
    command: str
    suppress_history: bool
    reach: Reach
    pane_pid: str
    shell: str  # the pane's foreground program (the carrier, or su's far shell)
    pending: PendingInput
    far_looks: FarLooks  # the server's looks at a far host (--ssh), shared by its runs
    frame: TypedFrame | None = None
    session_id: str = ""
    tty: str = ""
    far: FarView | None = None  # a far shell's pane, as its host's /proc shows it (--ssh)
    watch: TypedWatch | None = None
    buffer: str = ""  # the tmux buffer a far shell reads the program from (typed_buffer)
    fetch: str = ""  # the far shell's command that prints and deletes it
    held: ToolContext | None = None  # set while the buffer may be there

    @property
    def name(self) -> FrameName:
        return "typed"

    async def prepare(self, ctx: ToolContext) -> Ending | None:
        """Where nothing should be typed, or no shell answered the probe, the run ends
        ``not_started``; a line that is not a far shell's empty prompt is refused."""
        seen = await view.read(ctx.tmux, self.pane_id, BEFORE)
        self.session_id = seen["session"]
        # a far host's tty names no terminal of this machine: never opened here
        # (docs/run-outcomes.md, "A server on another host")
        far = far_host(ctx.tmux) is not None
        self.tty = seen["tty"] if not far else ""
        reach = self.reach
        frame = new_typed_frame(reach.kind or "posix", zsh=program_name(self.shell) == "zsh")
        if far and reach.kind is not None and not reach.carrier:
            # a far server's own shell can read a tmux buffer: no length limit
            self.buffer = f"muxport-run-{frame.nonce[:16]}"  # the half history forgets by
            self.fetch = typed_buffer.fetch(ctx.tmux.binary, ctx.tmux.socket_path, self.buffer)
        kinds: tuple[Kind, ...] = ("posix", "fish") if reach.kind is None else (reach.kind,)
        for each in kinds:  # refuses a command too long to type, before anything is typed
            dataclasses.replace(frame, kind=each).typed_line(self.command, self.suppress_history,
                                                             self.fetch)
        self.frame = frame
        if reach.kind is None:
            if seen["alternate_on"] == "1":
                return _not_started(
                    self.pane_id, "full_screen",
                    "the pane shows a full-screen program (alternate screen) on the far side "
                    f"of {reach.carrier}, not a shell prompt: nothing was typed", [],
                )
            if self.tty and echo_off(self.tty):
                return _not_started(
                    self.pane_id, "secret_prompt",
                    "the pane's terminal reads a line with echo off (the carrier asks for a "
                    "password or passphrase; ask the user to type it): nothing was typed", [],
                )
        if far and not reach.carrier:
            # a far shell: its host's /proc, read (the shell's group) while the line is
            # checked, which leaves the terminal to the shell as typing finds it
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(self._far_view, ctx, seen["tty"])
                    await check_far_line(ctx, self.pane_id, self.session_id, self.shell,
                                         self.pending)
            except BaseExceptionGroup as caught:
                raise _single(caught) from None
        else:
            await check_far_line(ctx, self.pane_id, self.session_id, self.shell, self.pending)
        if reach.kind is None:
            answered, lines = await self._probe(ctx, frame)
            if answered is None:
                return _not_started(
                    self.pane_id, "no_shell_answer",
                    f"no shell answered the probe line within {PROBE_BOUND:g}s (the far side "
                    "may still be connecting, ask for a password, or run a program)", lines,
                )
            self.frame = answered
        # again, right before typing
        await check_input(ctx, self.pane_id, exactly_one=True, what=f"the command {self.command!r}")
        return None

    async def _far_view(self, ctx: ToolContext, tty: str) -> None:
        self.far = await far_view(ctx.tmux, self.far_looks, self.pane_pid, tty)

    async def _probe(
        self, ctx: ToolContext, frame: TypedFrame
    ) -> tuple[TypedFrame | None, list[str]]:
        """Type the probe line; the frame for the far shell that answered it, or None (and
        what the pane shows). It carries the run's own nonce (its answer ``:p:`` is no
        marker of the frame), so that the frame can tell the probe's line in the far
        shell's history too."""
        await type_line(ctx, self.pane_id, frame.probe_line())

        def answered(seen: Observation) -> TypedFrame | None:
            return probed(frame, seen.lines)

        found, seen = await look_until(
            ctx, self.pane_id, self.pane_pid, self.session_id, answered, PROBE_BOUND
        )
        return found, shown(seen.lines)

    async def send(self, ctx: ToolContext) -> ProcessView | None:
        assert self.frame is not None
        # /proc only where it shows the run's processes (not a far host's pids)
        group = procs.foreground_group(self.pane_pid) if self.reach.local_view else None
        line = self.frame.typed_line(self.command, self.suppress_history, self.fetch)
        if self.fetch and self.fetch in line:
            program = self.frame.program(self.command, self.suppress_history)
            await typed_buffer.hold(ctx, self.buffer, program)
            self.held = ctx  # the line deletes the buffer; close() does if it never ran
        await type_line(ctx, self.pane_id, line)
        local = None
        if self.reach.local_view and self.pane_pid.isdigit():
            local = View(int(self.pane_pid), group, self.tty)
        self.watch = TypedWatch(
            ctx, self.pane_id, self.run_id, self.pane_pid, self.session_id, self.frame,
            self.reach.carrier, local, time.monotonic(),
        )
        if local is not None:
            return LocalSight(local)
        return FarSight(self.far) if self.far is not None else None

    async def follow(self, emit: Emit) -> Ending:
        assert self.watch is not None
        return await follow(self.watch, emit)

    def extract(self, capture: list[str]) -> Extracted:
        assert self.frame is not None
        return extract(self.frame, capture)

    def scrub(self, rows: list[str]) -> list[str]:
        return rows if self.frame is None else self.frame.scrub(rows)

    async def close(self) -> None:
        """A typed frame leaves nothing of its own behind, but for a program handed over
        in a buffer that its line never took."""
        if self.held is not None:
            await typed_buffer.drop(self.held, self.buffer)
            self.held = None


def _single(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception a task group raised, unwrapped (a Refused of the line's check)."""
    while len(group.exceptions) == 1:
        inner = group.exceptions[0]
        if not isinstance(inner, BaseExceptionGroup):
            return inner
        group = inner
    return group


def _applies(pane: PaneFacts) -> Reach | None:
    """Any shell or carrier of one; this machine's /proc shows the run's processes where
    they are this machine's (not a carrier's far side, not a far host's)."""
    if pane.carrier:
        return Reach("typed", None, False, pane.program)
    if pane.shell is None:
        return None
    return Reach("typed", pane.shell, pane.far_host is None)


def _build(order: Order) -> TypedStrategy:
    return TypedStrategy(order.pane_id, order.run_id, order.command, order.suppress_history,
                         order.reach, order.pane_pid, order.shell, order.pending,
                         order.far_looks)


kinds.register(FrameKind(
    "typed", _applies, _build, rank=20,
    facts=lambda: {
        "carriers": sorted(CARRIERS),
        "max_typed_chars": MAX_TYPED,
        "far_side_needs": "a POSIX shell with printf (fish: fish 3.1+ and sh)",
        "how": "one typed line; markers and status read from the pane's output",
    },
    # its typed lines (typed_text.py): a run's, a fish run's, a probe's
    line=r"eval \"\$\(printf '|sh -c \(printf '|printf '%s%s:p:%s",
))

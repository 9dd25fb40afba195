"""A frame's view of its run's processes (docs/runs-and-waits.md, "Frame kinds"): what
``Strategy.send`` returns and ``Run.view`` holds, and all the answer (run/answer.py) asks
of a run's processes: whether one of them waits for input, whether a shell the command
started took the terminal, and which program is in front.

Two views exist: this machine's ``/proc`` (``LocalSight``: local panes, su) and a far
server's host's, read through tmux (``FarSight``: ``muxport --ssh``). A run whose
processes no one can see (over ssh, sudo, a container in a pane) has no view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from muxport import ToolContext

from muxport_execute.host import procs
from muxport_execute.host.far_input import FarView, until_far_reading
from muxport_execute.host.input_wait import Reader, View, start_thread, until_reading
from muxport_execute.notes import is_posix_shell


class ProcessView(Protocol):
    """What the answer asks of a run's processes."""

    def ready(self) -> None:
        """Start what looking needs before the wait begins (a no-op where nothing)."""
        ...

    async def until_reading(self, ctx: ToolContext) -> Reader:
        """Return once one of the run's processes has been reading the terminal a while."""
        ...

    def took_over(self, reading: Reader) -> bool:
        """``reading`` is a shell the command started (``exec bash``) at its prompt,
        leading the terminal's foreground group: the run has ended, not waiting."""
        ...

    def foreground_program(self) -> str | None:
        """The program in front (vim, less), where tmux names the frame's subshell."""
        ...

    def reader_program(self, reading: Reader) -> str | None:
        """The name of the program that reads (tmux names the job's leader)."""
        ...


@dataclass(frozen=True)
class LocalSight:
    """The run's processes in this machine's ``/proc`` (host/input_wait.py)."""

    view: View

    def ready(self) -> None:
        start_thread()

    async def until_reading(self, ctx: ToolContext) -> Reader:
        return await until_reading(self.view)

    def took_over(self, reading: Reader) -> bool:
        # a run's own ``read`` is its frame's inner subshell, in the group the frame's
        # outer subshell leads
        name = procs.command_name(reading.pid)
        return is_posix_shell(name) and procs.foreground_group(self.view.pane_pid) == reading.pid

    def foreground_program(self) -> str | None:
        return procs.foreground_program(self.view.pane_pid)

    def reader_program(self, reading: Reader) -> str | None:
        return procs.command_name(reading.pid) or None


@dataclass(frozen=True)
class FarSight:
    """A far server's host's ``/proc``, read through tmux (host/far_input.py)."""

    far: FarView

    def ready(self) -> None:
        return None

    async def until_reading(self, ctx: ToolContext) -> Reader:
        return await until_far_reading(ctx, self.far)

    def took_over(self, reading: Reader) -> bool:
        return False  # a far run's end is its frame's markers alone

    def foreground_program(self) -> str | None:
        return None

    def reader_program(self, reading: Reader) -> str | None:
        return reading.name or None  # the far host's look named it

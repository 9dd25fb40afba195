"""A typed run's program handed over in a tmux buffer, for a shell of a far server's own
pane (``muxport --ssh``; docs/run-outcomes.md, "A server on another host").

A typed line holds the whole program in printf escapes, so a long command (a heredoc
writing a file) passes the 4000 characters a terminal in canonical mode keeps. A shell
in a pane of the served server can ask that server itself: the program goes into a named
buffer (``set-buffer``, in pieces below one message), and the short typed line runs
``tmux show-buffer`` and ``delete-buffer`` in one invocation and evaluates what it
printed. The buffer is deleted by that line, or when the run ends if the line never ran.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import anyio
from muxport import ToolContext, ToolError

from muxport_execute.frames.base import quote

CHUNK_BYTES = 12_000  # below one tmux message (16 KiB) with the command around it


def chunks(text: str, limit: int = CHUNK_BYTES) -> Iterator[str]:
    """``text`` in pieces of at most ``limit`` UTF-8 bytes, never splitting a character."""
    start, size = 0, 0
    for index, char in enumerate(text):
        width = len(char.encode())
        if size + width > limit:
            yield text[start:index]
            start, size = index, 0
        size += width
    if start < len(text):
        yield text[start:]


def fetch(binary: str, socket: str, name: str) -> str:
    """The far shell's command that prints the program and deletes its buffer (``\\;``
    is tmux's separator in POSIX shells and fish alike)."""
    return f"{quote(binary)} -S {quote(socket)} show-buffer -b {name} \\; delete-buffer -b {name}"


async def hold(ctx: ToolContext, name: str, program: str) -> None:
    """Put ``program`` in the buffer ``name``; on a failure nothing is left."""
    try:
        for index, piece in enumerate(chunks(program)):
            await ctx.tmux.run(("set-buffer", "-b", name, *(("-a",) if index else ()), "--",
                                piece))
    except BaseException:
        await drop(ctx, name)
        raise


async def drop(ctx: ToolContext, name: str) -> None:
    """Delete the buffer if it is still there; best effort (a lost connection or a gone
    server took it or will), shielded: also when the run is cancelled."""
    with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
        await ctx.tmux.run(("delete-buffer", "-b", name), check=False)

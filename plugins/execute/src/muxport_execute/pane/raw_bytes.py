"""Bytes that are not UTF-8 in a local run's output (docs/run-outcomes.md, "Bytes that are
not UTF-8").

tmux 3.3a drops such bytes before they reach the pane's grid (input.c
``input_top_bit_set``: a byte that opens no UTF-8 sequence, or breaks one, is discarded),
so no capture can show them. While a local run runs, the pane's raw output is copied by
``pipe-pane -O`` into the run's private directory. The pipe is opened in the invocation that
types the run's line, and only when the pane has no pipe (``#{pane_pipe}``): a pipe of the
user's is never replaced. At the end the bytes between the run's markers are checked, the
answer says how many invalid sequences they held, and a captured line that lines up with
its raw line shows U+FFFD where tmux dropped bytes.

The copy's file is named after its pane (``raw.<N>`` for ``%N``) in the run's private
directory, which is named after the muxport that owns it (host/owners.py): so the pipe's
own process (``dd ... of=<dir>/raw.<N>``, a child of the tmux server) says which pane it
serves and whose it is, even once its owner died (run/cleanup.py).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import anyio
from muxport import Tmux

RAW = "raw"
# dd's output operand as open_pipe writes it: the private directory and the pane number
OUTPUT = re.compile(r"^of=(/[A-Za-z0-9_./+-]*/mxr-[^/]+)/raw\.([0-9]{1,10})$")
# bytes copied at most: a chatty command cannot fill the disk; past it the copy ends,
# tmux closes the pipe, and the answer says nothing about bytes (invalid_utf8 null)
MAX_RAW = 8 << 20
INLINE = 64 << 10  # bytes analysed on the event loop; more go to a thread
LOOKAHEAD = 50  # raw lines searched for the one a captured line lines up with
NOTE = (
    "the command printed {count} bytes that are not UTF-8; tmux drops them from the pane, "
    "so where a line lines up with the raw output U+FFFD stands in their place: to see the "
    "bytes, redirect to a file (cmd > out.bin) and read it with od -c or xxd"
)
SETTLE = 0.5  # seconds the copy may lag behind the pane once the end marker is there
# CSI, OSC (to BEL or ST), other two-byte escapes: what the terminal consumes
LONE = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of an invalid byte
ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b[@-_]")


@dataclass(frozen=True)
class Copy:
    """A run's copy of its pane's raw output: where it is, and the run's markers."""

    pane_id: str
    directory: Path
    start: str  # the start marker line
    end: str  # what the end marker begins with


def raw_path(directory: Path, pane_id: str) -> Path:
    """The file the copy of ``pane_id``'s output goes to."""
    return directory / f"{RAW}.{pane_id.lstrip('%')}"


def pipe_of(command_line: list[str]) -> tuple[Path, str] | None:
    """The private directory and the pane of a run's copy, read from its process's
    command line (None: not a run's copy)."""
    if not command_line or os.path.basename(command_line[0]) != "dd":
        return None
    for word in command_line[1:]:
        found = OUTPUT.match(word)
        if found is not None:
            return Path(found[1]), "%" + found[2]
    return None


def open_pipe(pane_id: str, directory: Path) -> tuple[str, ...]:
    """The command (for the typing invocation) that copies the pane's output into
    ``directory`` when the pane has no pipe; a no-op when it has one. The private
    directory's path holds only safe characters (frame.base_dir), so it needs no quoting
    beyond single quotes."""
    # dd writes each read at once (head and cat buffer or never stop); counts bytes
    out = raw_path(directory, pane_id)
    dd = f"exec dd bs=65536 iflag=count_bytes count={MAX_RAW} status=none of='{out}'"
    copy = f'pipe-pane -O -t {pane_id} "{dd}"'
    return ("if-shell", "-F", "-t", pane_id, "#{pane_pipe}", "", copy)


def close_pipe(pane_id: str) -> tuple[str, ...]:
    """Close the pane's pipe, if it still has one: the run's own."""
    return ("if-shell", "-F", "-t", pane_id, "#{pane_pipe}", f"pipe-pane -t {pane_id}")


def count_invalid(data: bytes) -> int:
    """Bytes of ``data`` that are not part of valid UTF-8."""
    return len(LONE.findall(data.decode("utf-8", "surrogateescape")))


def between(data: bytes, start: bytes, end: bytes) -> bytes | None:
    """The bytes after the start marker's line and before the end marker (None: not both)."""
    first = data.rfind(start + b"\r\n")
    if first < 0:
        first = data.rfind(start + b"\n")
    if first < 0:
        return None
    body = data[first + len(start):].lstrip(b"\r\n")
    last = body.find(end)
    return body[:last] if last >= 0 else None


async def segment(copy: Copy) -> bytes | None:
    """The run's raw output from its copy, once the copy holds the end marker (None: not
    within ``SETTLE``, or no copy)."""
    path, start, end = raw_path(copy.directory, copy.pane_id), copy.start, copy.end
    deadline = anyio.current_time() + SETTLE
    while True:
        try:
            # a run's copy is mostly a few hundred bytes: read at once; a large one in a thread
            small = path.stat().st_size <= INLINE
            data = path.read_bytes() if small else await anyio.Path(path).read_bytes()
        except OSError:
            return None
        found = between(data, start.encode(), end.encode())
        if found is not None or anyio.current_time() >= deadline or len(data) >= MAX_RAW:
            return found  # a full copy has ended (dd's count): it will not grow
        await anyio.sleep(0.002)  # a file has no event: the copy lags by a loop turn of tmux


def visible(data: bytes) -> list[str]:
    """The raw output as lines a terminal would show, invalid bytes as U+FFFD."""
    text = ESCAPES.sub("", data.decode("utf-8", "replace"))
    return [line.split("\r")[-1].rstrip(" ") for line in text.replace("\r\n", "\n").split("\n")]


def restore(lines: list[str], raw: list[str]) -> list[str]:
    """``lines`` (captured) with each line that lines up with a raw line taken from the raw
    one, which shows U+FFFD where tmux dropped bytes; lines that do not line up stay."""
    out, at = list(lines), 0
    for index, line in enumerate(lines):
        for probe in range(at, min(len(raw), at + LOOKAHEAD)):
            if raw[probe].replace("\ufffd", "") == line:
                out[index], at = raw[probe], probe + 1
                break
    return out


def _analyse(data: bytes, lines: list[str]) -> tuple[int, list[str]]:
    invalid = count_invalid(data)
    return invalid, (restore(lines, visible(data)) if invalid else lines)


async def check(copy: Copy, lines: list[str]) -> tuple[int | None, list[str]]:
    """How many bytes of the run's output were not UTF-8 (None: unknown, the copy is not
    complete), and ``lines`` with U+FFFD where they line up with the raw output."""
    data = await segment(copy)
    if data is None:
        return None, lines
    if len(data) <= INLINE:  # microseconds: a thread would cost more than it saves
        return _analyse(data, lines)
    # up to MAX_RAW bytes decoded and matched: off the event loop
    return await anyio.to_thread.run_sync(_analyse, data, lines)


async def close(tmux: Tmux, copy: Copy) -> None:
    """End the copy (bounded like every tmux call; a stall leaves it to end with the pane)."""
    await tmux.run(close_pipe(copy.pane_id), check=False)

"""The shared records (session, window, pane) and the tmux queries that fill them.

Every toolset answers with these shapes, so they live in the core. Fields are
read with ``-F`` formats joined by US (0x1f) and ended by RS (0x1e): tmux escapes
control characters inside names (``\\037``, ``\\t``), and the record end keeps a raw
newline in a path from splitting a record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel, Field

from muxport._internal.caller import Caller
from muxport._internal.transport import Tmux

SEP = "\x1f"
END = "\x1e"
_ESCAPE = re.compile(r"\\(\\|n|t|r|[0-7]{3})")
_SIMPLE = {"\\": "\\", "n": "\n", "t": "\t", "r": "\r"}


def unescape(value: str) -> str:
    """Undo tmux's C-style escaping of control characters in ``-F`` output."""
    return _ESCAPE.sub(lambda m: _SIMPLE.get(m.group(1)) or chr(int(m.group(1), 8)), value)


class Session(BaseModel):
    id: str
    name: str
    attached: int = Field(description="number of clients attached")
    windows: int
    created: int = Field(description="creation time, seconds since the epoch")


class Window(BaseModel):
    id: str
    index: int
    name: str
    session_id: str
    active: bool
    panes: int
    width: int
    height: int
    zoomed: bool


class Pane(BaseModel):
    id: str
    index: int
    window_id: str
    session_id: str
    active: bool
    command: str = Field(description="foreground command")
    path: str = Field(description="current directory")
    title: str
    width: int
    height: int
    pid: int
    dead: bool
    in_mode: bool = Field(description="in copy or another mode")
    caller: bool | None = Field(description="muxport's own pane; null outside tmux")


SESSION_FIELDS = {
    "id": "session_id", "name": "session_name", "attached": "session_attached",
    "windows": "session_windows", "created": "session_created",
}
WINDOW_FIELDS = {
    "id": "window_id", "index": "window_index", "name": "window_name",
    "session_id": "session_id", "active": "window_active", "panes": "window_panes",
    "width": "window_width", "height": "window_height", "zoomed": "window_zoomed_flag",
}
PANE_FIELDS = {
    "id": "pane_id", "index": "pane_index", "window_id": "window_id",
    "session_id": "session_id", "active": "pane_active", "command": "pane_current_command",
    "path": "pane_current_path", "title": "pane_title", "width": "pane_width",
    "height": "pane_height", "pid": "pane_pid", "dead": "pane_dead", "in_mode": "pane_in_mode",
}

M = TypeVar("M", bound=BaseModel)


def fmt(fields: dict[str, str]) -> str:
    """The ``-F`` format reading ``fields`` (record key -> tmux variable)."""
    return SEP.join("#{" + var + "}" for var in fields.values()) + END


def records(stdout: str) -> list[str]:
    """The records of ``fmt`` output, one per object."""
    return [r.lstrip("\n") for r in stdout.split(END) if r.strip("\n")]


def parse(model: type[M], fields: dict[str, str], line: str, **extra: object) -> M:
    """One record from one line of ``fmt(fields)`` output (an empty optional int is null)."""
    values = [unescape(v) for v in line.split(SEP)]
    data: dict[str, object] = dict(zip(fields, values, strict=False))
    for key, info in model.model_fields.items():
        if info.annotation is bool and key in data:
            data[key] = data[key] == "1"
        elif info.annotation is int and key in data:
            data[key] = int(str(data[key]) or 0)
        elif info.annotation == int | None and key in data:
            data[key] = int(str(data[key])) if data[key] else None
    data.update(extra)
    return model.model_validate(data)


def parse_pane(line: str, caller: Caller) -> Pane:
    pane_id = line.split(SEP, 1)[0]
    return parse(Pane, PANE_FIELDS, line, caller=caller.marks(pane_id))


async def apply(
    tmux: Tmux, command: Sequence[str], model: type[M], fields: dict[str, str], target: str,
    **extra: object,
) -> M:
    """Run ``command``, then read ``target`` back as ``model`` in the SAME invocation, so
    that the answer shows the change and nothing that came after it (docs/tmux-facts.md)."""
    out = await tmux.run(command, ("display-message", "-p", "-t", target, fmt(fields)))
    return parse(model, fields, records(out.stdout)[-1], **extra)

"""The shared records (session, window, pane) and the tmux queries that fill them.

Every toolset answers with these shapes, so they live in the core. This module is the
ONE place that builds ``-F`` / ``display -p`` formats and reads them back: every value
is printed through ``#{q:}`` (which puts a backslash before ``\\`` and shell
punctuation), fields are joined by a bare ``|`` and records end with a bare ``&``.
Neither separator is a control character, so the octal escaping tmux 3.4 and 3.5a
apply to printed lines cannot touch them, and a value's own ``|``, ``&`` or ``\\`` is
always escaped: the reading is exact on every version (docs/tmux-facts.md, "Format
output").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import ClassVar, TypeVar

from pydantic import BaseModel, Field

from muxport._internal.caller import Caller
from muxport._internal.tmuxclient import Tmux

SEP = "|"  # between fields: bare in the format, escaped (\\|) inside any #{q:} value
END = "&"  # after each record: tmux adds its own newline after it
# A backslash starts one escape: three octal digits or a C-style letter come from
# tmux 3.4/3.5a's VIS_OCTAL|VIS_CSTYLE pass over the line (server_client_print); any
# other character after it is #{q:}'s (format_quote_shell never escapes a letter or a
# digit, and escapes every backslash, so the two never meet).
# tmux 3.4 alone also puts a backslash before every `$` that starts a name (utf8_strvis:
# `$` then a letter, `_` or `{`); #{q:} leaves an odd run of backslashes before every `$`,
# so an even run there holds 3.4's one extra (docs/tmux-facts.md, "Format output").
NAME_DOLLAR = r"((?:\\\\)+)\$(?=[A-Za-z_{])"
_TOKEN = re.compile(
    NAME_DOLLAR + r"|\\([0-7]{3})|\\([abfrv])|\\(.)|([|&])|([^\\|&]+)|(\\)\Z", re.S
)
_CSTYLE = {"a": "\a", "b": "\b", "f": "\f", "r": "\r", "v": "\v"}
Fields = list[str]


def undo_name_dollar(text: str) -> str:
    """Shell-quoted tmux output (``show-environment -s``) without 3.4's extra backslash
    before a ``$`` that starts a name: one pair of an even run goes, as in ``_TOKEN``."""
    return re.sub(NAME_DOLLAR, lambda m: m[1][:-2] + "\\$", text)


# tmux's time variables, with the variable that is empty when their object is missing.
# tmux 3.2a reads a time value without a NULL check (format.c, format_find): one asked of
# a missing object (display-message -t of a session that is gone) crashes the server, so
# each is read only when its object is there (docs/tmux-facts.md, "Versions").
TIME_OWNERS = {
    "session_created": "session_id", "session_activity": "session_id",
    "session_last_attached": "session_id", "window_activity": "window_id",
    "client_activity": "client_name", "client_created": "client_name",
    "buffer_created": "buffer_name", "pane_dead_time": "pane_id",
}


def field(var: str) -> str:
    """The format printing one tmux variable so that ``records`` reads it back exactly."""
    owner = TIME_OWNERS.get(var)
    return "#{q:" + var + "}" if owner is None else "#{?" + owner + ",#{q:" + var + "},}"


def fmt(fields: dict[str, str] | Iterable[str]) -> str:
    """The ``-F`` format reading ``fields`` (record key -> tmux variable, or variables)."""
    names = fields.values() if isinstance(fields, dict) else fields
    return SEP.join(field(var) for var in names) + END


def _cut(stdout: str, limit: int | None = None) -> tuple[list[Fields], str]:
    """Up to ``limit`` records from the start of ``stdout``, and the text after them."""
    found: list[Fields] = []
    fields: Fields = []
    value: list[str] = []
    raw = bytearray()  # octal escapes in a row: one byte sequence, decoded as tmux's bytes

    def flush() -> None:
        if raw:
            value.append(raw.decode("utf-8", "replace"))
            raw.clear()

    position = 0
    for match in _TOKEN.finditer(stdout):
        dollar, octal, letter, quoted, sep, text, _tail = match.groups()
        if octal is not None:
            raw.append(int(octal, 8) & 0xFF)
            continue
        flush()
        if dollar is not None:  # 2k+2 backslashes: k escaped ones, 3.4's, #{q:}'s
            value.append("\\" * (len(dollar) // 2 - 1) + "$")
        elif letter is not None:
            value.append(_CSTYLE[letter])
        elif quoted is not None:
            value.append(quoted)
        elif sep is not None:
            fields.append("".join(value))
            value.clear()
            if sep == END:
                found.append(fields)
                fields = []
                position = match.end()
                if stdout.startswith("\n", position):  # the newline tmux ends each line with
                    position += 1
                if limit is not None and len(found) == limit:
                    return found, stdout[position:]
        elif match.start() < position:  # text starting with that newline
            value.append(text[1:])
        else:
            value.append(text or "\\")
    return found, stdout[position:]


def records(stdout: str) -> list[Fields]:
    """The records of ``fmt`` output, one list of exact values per object (text that is
    not a record, such as a trailing newline, is left out)."""
    return _cut(stdout)[0]


def head(stdout: str) -> tuple[Fields, str]:
    """The first record and the raw text after it (a capture printed after a header);
    no record: empty fields and the whole text."""
    found, rest = _cut(stdout, 1)
    return (found[0], rest) if found else ([], stdout)


class Session(BaseModel):
    id: str
    name: str
    attached: int = Field(description="clients attached")
    windows: int
    created: int = Field(description="creation, epoch seconds")

    FIELDS: ClassVar[dict[str, str]] = {
        "id": "session_id", "name": "session_name", "attached": "session_attached",
        "windows": "session_windows", "created": "session_created",
    }


class Window(BaseModel):
    id: str
    index: int
    name: str
    session_id: str
    active: bool
    panes: int
    width: int
    height: int
    zoomed: bool = False

    FIELDS: ClassVar[dict[str, str]] = {
        "id": "window_id", "index": "window_index", "name": "window_name",
        "session_id": "session_id", "active": "window_active", "panes": "window_panes",
        "width": "window_width", "height": "window_height", "zoomed": "window_zoomed_flag",
    }


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
    dead: bool = False
    in_mode: bool = Field(default=False, description="in copy mode or another")
    caller: bool | None = Field(
        default=None, description="muxport's own pane"
    )

    FIELDS: ClassVar[dict[str, str]] = {
        "id": "pane_id", "index": "pane_index", "window_id": "window_id",
        "session_id": "session_id", "active": "pane_active", "command": "pane_current_command",
        "path": "pane_current_path", "title": "pane_title", "width": "pane_width",
        "height": "pane_height", "pid": "pane_pid", "dead": "pane_dead",
        "in_mode": "pane_in_mode",
    }

    @classmethod
    def read(cls, values: Sequence[str], caller: Caller) -> Pane:
        """One pane from a record of ``fmt(Pane.FIELDS)``, marked when it is the caller's."""
        return parse(cls, cls.FIELDS, values, caller=caller.marks(values[0] if values else ""))


M = TypeVar("M", bound=BaseModel)


def flag(value: str) -> bool:
    """A format read as yes or no: any number but 0. Some are counts, not 0 or 1:
    ``pane_in_mode`` is how many modes are stacked on the pane (view-mode showing a
    config's errors, copy-mode entered over it: 2); docs/tmux-facts.md, "Formats that
    count"."""
    return value.isdigit() and int(value) != 0


def parse(model: type[M], fields: dict[str, str], values: Sequence[str], **extra: object) -> M:
    """One object from one record of ``fmt(fields)`` output (an empty optional int is null)."""
    data: dict[str, object] = dict(zip(fields, values, strict=False))
    for key, info in model.model_fields.items():
        if info.annotation is bool and key in data:
            data[key] = flag(str(data[key]))
        elif info.annotation is int and key in data:
            data[key] = int(str(data[key]) or 0)
        elif info.annotation == int | None and key in data:
            data[key] = int(str(data[key])) if data[key] else None
    data.update(extra)
    return model.model_validate(data)


async def apply(
    tmux: Tmux, command: Sequence[str], model: type[M], fields: dict[str, str], target: str,
    **extra: object,
) -> M:
    """Run ``command``, then read ``target`` back as ``model`` in the SAME invocation, so
    that the answer shows the change and nothing that came after it (docs/tmux-facts.md)."""
    out = await tmux.run(command, ("display-message", "-p", "-t", target, fmt(fields)))
    return parse(model, fields, records(out.stdout)[-1], **extra)

"""Session and window names tmux keeps exactly as given (shared by the toolsets that set
one; a pane title and a start directory are their one toolset's own).

tmux format-expands the commands that set names (pass values through ``literal()``).
What tmux would still store differently is refused up front with the reason, rather
than stored altered: control characters, a backslash, ``$`` before a letter, ``_`` or
``{`` (vis-escaped), and in session names ``:`` and ``.`` (turned into ``_``).
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field

_DOLLAR = re.compile(r"\$[A-Za-z_{]")


def _controls(value: str) -> str | None:
    for ch in value:
        code = ord(ch)
        if code < 32 or code == 127 or 0xD800 <= code <= 0xDFFF:
            return repr(ch)
    return None


def _tmux_keeps(value: str, what: str) -> str:
    bad = _controls(value)
    if bad:
        raise ValueError(
            f"the {what} contains the control character {bad}, which tmux would store "
            "escaped; pass printable text"
        )
    if "\\" in value:
        raise ValueError(f"tmux stores a backslash in a {what} doubled; pass it without '\\'")
    match = _DOLLAR.search(value)
    if match:
        raise ValueError(
            f"tmux stores {match.group()!r} in a {what} as '\\{match.group()}'; "
            "drop the '$' or put a space after it"
        )
    return value


def _window_name(value: str) -> str:
    return _tmux_keeps(value, "window name")


def _session_name(value: str) -> str:
    for ch in ":.":
        if ch in value:
            raise ValueError(
                f"a session name cannot contain {ch!r}: tmux turns it into '_' (it separates "
                "session, window and pane in targets); use '-' or '_' instead"
            )
    return _tmux_keeps(value, "session name")


SessionName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=256,
        description="kept exactly ('#' too); no : . \\ or control chars",
    ),
    AfterValidator(_session_name),
]
WindowName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=256,
        description="kept exactly ('#' too); no \\ or control chars",
    ),
    AfterValidator(_window_name),
]

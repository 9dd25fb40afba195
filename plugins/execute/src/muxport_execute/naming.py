"""Argument types shared by the create tools: names and start directories tmux keeps literally.

tmux format-expands ``-s``, ``-n`` and ``-c`` values (tmux-facts §2), so every one is
passed through ``literal()``; what tmux would still alter (control characters, ``:``
and ``.`` in session names) is refused with the reason instead of stored changed.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from muxport.errors import InvalidArgument
from pydantic import AfterValidator, Field


def _no_controls(value: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError("control characters are not allowed (tmux would store them escaped)")
    return value


def _session_name(value: str) -> str:
    if ":" in value or "." in value:
        raise ValueError("a session name cannot contain ':' or '.' (tmux turns them into '_')")
    return _no_controls(value)


def _absolute(value: str) -> str:
    if not value.startswith("/"):
        raise ValueError("start_directory must be an absolute path, e.g. /home/me/project")
    return _no_controls(value)


SessionName = Annotated[
    str, Field(min_length=1, max_length=256, description="stored literally (# is not expanded)"),
    AfterValidator(_session_name),
]
WindowName = Annotated[
    str, Field(min_length=1, max_length=256, description="stored literally (# is not expanded)"),
    AfterValidator(_no_controls),
]
StartDirectory = Annotated[
    str, Field(min_length=1, max_length=4096, description="absolute path of an existing directory"),
    AfterValidator(_absolute),
]


async def checked_directory(path: str | None) -> str | None:
    """``path`` if it is an existing directory; tmux would silently start elsewhere otherwise."""
    if path is None:
        return None
    if not await anyio.Path(path).is_dir():
        raise InvalidArgument(
            f"start_directory {path!r} is not an existing directory; pass an absolute path "
            "that exists (tmux would silently start the pane somewhere else)"
        )
    return path

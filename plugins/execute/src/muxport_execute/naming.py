"""Names and start directories for the create tools.

tmux format-expands ``-s``, ``-n`` and ``-c`` values, so every one is passed through
``literal()``; the name types (``muxport.names``) refuse what tmux would store altered.

A start directory is checked on this machine, where a local server starts its panes. A
server on another host (``--ssh``) starts them in that host's directories, which this
machine cannot look at: there it is passed on unchecked, and the answer's note says so
(``unchecked_note``; tmux 3.3a starts the pane in the home directory when it is missing).
"""

from __future__ import annotations

from typing import Annotated

import anyio
from muxport import InvalidArgument, SessionName, Tmux, WindowName
from pydantic import AfterValidator, Field

__all__ = ["SessionName", "StartDirectory", "WindowName", "checked_directory", "unchecked_note"]


def _absolute(value: str) -> str:
    """An absolute path without control characters (tmux would store them escaped)."""
    if not value.startswith("/"):
        raise ValueError("start_directory must be an absolute path, e.g. /home/me/project")
    for ch in value:
        if ord(ch) < 32 or ord(ch) == 127 or 0xD800 <= ord(ch) <= 0xDFFF:
            raise ValueError(f"start_directory contains the control character {ch!r}")
    return value


# Only this toolset starts panes in a directory, so the type is its own.
StartDirectory = Annotated[
    str,
    Field(min_length=1, max_length=4096, description="absolute, existing"),
    AfterValidator(_absolute),
]


async def checked_directory(tmux: Tmux, path: str | None) -> str | None:
    """``path`` if it is an existing directory; tmux would silently start elsewhere otherwise."""
    if path is None or not tmux.host.local:
        return path
    if not await anyio.Path(path).is_dir():
        raise InvalidArgument(
            f"start_directory {path!r} is not an existing directory; pass an absolute path "
            "that exists (tmux would silently start the pane somewhere else)"
        )
    return path


def unchecked_note(tmux: Tmux, path: str | None) -> str | None:
    """The note of an answer whose ``start_directory`` could not be checked (None: it was)."""
    if path is None or tmux.host.local:
        return None
    return (
        f"start_directory was not checked: the tmux server runs on {tmux.host.name} "
        f"(--{tmux.host.kind}), whose files this machine cannot see; where the directory "
        "does not exist there, tmux starts the pane in the home directory instead "
        "(list_panes shows each pane's path)"
    )

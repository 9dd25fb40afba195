"""Names and start directories for the create tools.

tmux format-expands ``-s``, ``-n`` and ``-c`` values, so every one is passed through
``literal()``; the name types (``muxport.names``) refuse what tmux would store altered.
"""

from __future__ import annotations

import anyio
from muxport import InvalidArgument, SessionName, StartDirectory, WindowName

__all__ = ["SessionName", "StartDirectory", "WindowName", "checked_directory"]


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

"""Capability rows and argument types shared by the manage tools.

Names reach tmux through commands that format-expand them, so they are passed
through ``literal()``; the name types (``muxport.names``) refuse what tmux would
store altered.
"""

from __future__ import annotations

from typing import Annotated, Any

from muxport.names import PaneTitle, SessionName, WindowName
from pydantic import Field

# DESIGN §6 rows, values from the reference catalog (§4a, the Java column: a tool
# that answers with names, titles or paths sets both risk flags; ids only, neither).
# NAMED and OPTION tools set a value: the same call again changes nothing more.
NAMED: dict[str, Any] = dict(
    reach="none",
    effects=["observe", "change"],
    outputs=["tmux-metadata"],
    secrets=True,
    untrusted=True,
    idempotent=True,
)
STRUCTURAL: dict[str, Any] = dict(
    reach="none",
    effects=["observe", "change"],
    outputs=["tmux-metadata"],
    secrets=False,
    untrusted=False,
)
CHANNEL: dict[str, Any] = dict(
    reach="none", effects=["change"], outputs=["tmux-metadata"], secrets=True, untrusted=True
)
OPTION: dict[str, Any] = dict(
    reach="none", effects=["change"], outputs=["tmux-metadata"], secrets=False, untrusted=False,
    idempotent=True,
)

Cells = Annotated[int | None, Field(default=None, ge=1, le=10_000, description="size in cells")]

__all__ = [
    "CHANNEL",
    "NAMED",
    "OPTION",
    "STRUCTURAL",
    "Cells",
    "PaneTitle",
    "SessionName",
    "WindowName",
]

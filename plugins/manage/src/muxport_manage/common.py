"""Capability rows and argument types shared by the manage tools.

Names reach tmux through commands that format-expand them, so they are passed
through ``literal()``; the name types (``muxport.names``) refuse what tmux would
store altered.
"""

from __future__ import annotations

from typing import Annotated

from muxport import CHANGE, PaneTitle, SessionName, WindowName
from pydantic import Field

# Capability rows (docs/plugin-contract.md): a tool that answers with names, titles or
# paths sets both risk flags; one that answers with ids and numbers only, neither.
NAMED = CHANGE.replace(may_expose_secrets=True, may_return_untrusted_content=True)
STRUCTURAL = CHANGE
CHANNEL = NAMED.replace(tmux_effects=["change"])
OPTION = CHANGE.replace(tmux_effects=["change"])

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

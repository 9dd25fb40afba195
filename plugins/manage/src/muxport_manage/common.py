"""Capability rows and argument types shared by the manage tools.

Names reach tmux through commands that format-expand them, so they are passed
through ``literal()``; the name types (``muxport.names``) refuse what tmux would
store altered.
"""

from __future__ import annotations

from typing import Annotated

from muxport import Capability, SessionName, WindowName
from pydantic import AfterValidator, Field

# Capability rows (docs/plugin-contract.md): a tool that answers with names, titles or
# paths sets both risk flags; one that answers with ids and numbers only, neither.
# NAMED and OPTION tools set a value: the same call again changes nothing more.
NAMED = Capability.CHANGE.replace(
    may_expose_secrets=True, may_return_untrusted_content=True, idempotent=True
)
STRUCTURAL = Capability.CHANGE
CHANNEL = Capability.CHANGE.replace(
    tmux_effects=["change"], may_expose_secrets=True, may_return_untrusted_content=True
)
OPTION = Capability.CHANGE.replace(tmux_effects=["change"], idempotent=True)



def _title(value: str) -> str:
    for ch in value:
        if ord(ch) < 32 or ord(ch) == 127 or 0xD800 <= ord(ch) <= 0xDFFF:
            raise ValueError(
                f"the title contains the control character {ch!r}; tmux silently ignores "
                "such a title, so pass printable text"
            )
    return value


# Only this toolset sets titles, so the type is its own (the names are the core's).
PaneTitle = Annotated[
    str,
    Field(max_length=1024, description="kept exactly ('#' too); printable"),
    AfterValidator(_title),
]

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

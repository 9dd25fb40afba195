"""Argument types for tmux targets: exact ids only (docs/plugin-contract.md).

A bare number is refused with the reason: tmux would read it as an index and
hit another pane.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from muxport._internal.budgets import MAX_LINES, Ceiling
from muxport._internal.facts import OBJECT_KINDS

# id prefix -> (kind, the listing tool), from the transport's one kinds table
PREFIXES = {prefix: (kind, tool) for kind, (prefix, tool) in OBJECT_KINDS.items()}


# What tmux prints: no sign, no leading zero, no space. [0-9], not \d: \d is [0-9] in
# ECMA-262 but any Unicode digit in Python's re, with which some clients check a schema.
ID_DIGITS = r"(0|[1-9][0-9]*)"


def exact_id(value: str, prefix: str) -> str:
    """``value`` if it is an exact id with ``prefix`` (%, @, $); ValueError naming the listing."""
    result: str = _exact_id(prefix)(value)
    return result


def _exact_id(prefix: str) -> Callable[[Any], Any]:
    """The check behind an id's schema pattern: the same pattern, nothing stripped or read
    loosely (``%0 ``, ``%0\\n`` and ``%00`` are not ``%0``; tmux would read them as ``%0``)."""
    kind, tool = PREFIXES[prefix]
    exact = re.compile(re.escape(prefix) + ID_DIGITS, re.ASCII)

    def check(value: Any) -> Any:
        text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        if not isinstance(text, str):
            return text  # the str type refuses it
        if text.strip().isdigit():
            raise ValueError(
                f"a bare number ({text.strip()}) is not a {kind} id: tmux would read it as an "
                f"index and could hit another {kind}; pass the id from {tool}, e.g. "
                f"{prefix}{text.strip()}"
            )
        if not exact.fullmatch(text):
            raise ValueError(
                f"{text!r} is not a {kind} id like {prefix}3 (exactly as {tool} prints it: no "
                f"spaces, no leading zeros); call {tool} for the ids"
            )
        return text

    return check


def _id_pattern(prefix: str) -> str:
    return "^" + re.escape(prefix) + ID_DIGITS + "$"


# Field comes before the validator so that the pattern also appears in the inputSchema
# (pydantic drops it from the JSON schema when it follows a BeforeValidator). No
# description: the pattern shows the shape, the server instructions where ids come from,
# and 30 schemas would repeat it.
PaneId = Annotated[str, Field(pattern=_id_pattern("%")), BeforeValidator(_exact_id("%"))]
WindowId = Annotated[str, Field(pattern=_id_pattern("@")), BeforeValidator(_exact_id("@"))]
SessionId = Annotated[str, Field(pattern=_id_pattern("$")), BeforeValidator(_exact_id("$"))]
# The schema's bounds are the caps themselves (budgets.py): what a client validating by the
# schema accepts, the server accepts, and nothing is clamped in silence.
MaxLines = Annotated[
    int | None,
    Field(default=None, ge=1, le=MAX_LINES, description="newest kept, default 200"),
]
Timeout = Annotated[
    Annotated[float, Field(ge=0), Ceiling()] | None,
    Field(default=None, description="seconds, default 30"),
]


class Args(BaseModel):
    """Base of every argument model: unknown arguments are refused."""

    model_config = ConfigDict(extra="forbid")


class Result(BaseModel):
    """Base of every answer model; ``note`` says what the fields cannot."""

    # No description and no null: the name says it, 47 output schemas would repeat it,
    # and answer_dict leaves an empty note out.
    note: Annotated[str | None, WithJsonSchema({"type": "string"}, mode="serialization")] = None

    # What a model reads (docs/answers.md): structuredContent and the text block leave out
    # ``text_omits`` and the ``text_quiet`` fields at the value that says nothing happened
    # (``_meta`` has them, for programs); the text block has the fields as JSON on its first
    # line, then the lines of the list field ``text_body``, one a line, as the pane shows them.
    text_body: ClassVar[str | None] = None
    text_omits: ClassVar[frozenset[str]] = frozenset()
    text_quiet: ClassVar[dict[str, Any]] = {}

"""A call's arguments before its tool's model sees them: the control fields clients add on
their own, and the hint an unknown argument gets (README, "Adding it to a client").

Some clients add fields of their own to every tool's schema and forward them with the
model's arguments. They mean something to the client, nothing to a tool: every tool
accepts and ignores them. Any other unknown argument is refused, naming the right one.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

# name -> who adds it and what it means to them (the README's clients section lists them)
CLIENT_FIELDS: Mapping[str, str] = {
    "wait_for_previous": "Gemini CLI adds it to every MCP tool's schema: run this call "
    "after the previous one",
}


def without_client_fields(arguments: Mapping[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """``arguments`` without the fields clients add, unless the tool declares one itself."""
    return {
        key: value
        for key, value in arguments.items()
        if key not in CLIENT_FIELDS or key in model.model_fields
    }


def fields_at(model: type[BaseModel] | None, loc: Sequence[int | str]) -> list[str] | None:
    """The argument names of the (nested) model an error at ``loc`` is about (None: not
    known)."""
    current: Any = model
    for step in loc:
        if isinstance(step, int):
            continue  # a list's index: the item type was taken below
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        field = current.model_fields.get(step)
        if field is None:
            return None
        current = _model_in(field.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return None


def _model_in(annotation: Any) -> Any:
    """The model an annotation holds (itself, or inside a list, an Optional, an Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for inner in typing.get_args(annotation):
        found = _model_in(inner)
        if found is not None:
            return found
    return None


def unknown_hint(name: str, fields: Sequence[str] | None) -> str:
    """What to do about argument ``name`` that the tool does not take."""
    if fields is None:
        return "unknown argument: remove it"
    close = difflib.get_close_matches(name, fields, n=1, cutoff=0.6)
    if not close:
        close = [f for f in fields if name and (f.startswith(name) or name.startswith(f))][:1]
    if close:
        return f"unknown argument: did you mean {close[0]}?"
    if fields:
        return f"unknown argument: remove it (the arguments are {', '.join(fields)})"
    return "unknown argument: remove it (no arguments are taken here)"

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


def bad_string(value: Any, where: str = "", nul: bool = False) -> str | None:
    """Where ``value`` holds a string no tool can take, and why: a lone surrogate (not
    Unicode text: it has no UTF-8 form) anywhere, or, with ``nul``, a NUL character (no
    pane holds one, and no tmux value can carry one). None when every string is fine."""
    if isinstance(value, str):
        if nul and "\x00" in value:
            return f"{where or 'a value'} holds a NUL character (\\u0000): remove it"
        try:
            value.encode()
        except UnicodeEncodeError as exc:
            char = f"U+{ord(value[exc.start]):04X}"
            return (f"{where or 'a value'} holds a lone surrogate ({char} at index {exc.start}), "
                    "which is not Unicode text: send valid UTF-8 (a character outside the BMP "
                    "is escaped as a pair, like \\ud83d\\ude00)")
        return None
    items: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if (found := bad_string(key, where or "a name", nul)) is not None:
                return found
            items.append((f"{where}.{key}" if where else str(key), item))
    elif isinstance(value, list):
        items = [(f"{where}[{index}]", item) for index, item in enumerate(value)]
    for place, item in items:
        if (found := bad_string(item, place, nul)) is not None:
            return found
    return None

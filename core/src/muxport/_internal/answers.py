"""How large an answer may be: the answer budget (README, "Answers a client keeps";
docs/answers.md, "The answer budget").

A client hands its model only so much of a tool's answer whole (client_limits.py), and
what it cuts is the newest lines. So no answer is larger than the budget, counted in
characters of what a client shows: the text block as it is and ``structuredContent`` as
compact JSON (every ``"`` and ``\\`` escaped), the larger of the two. Each call gets one
``AnswerBudget``; ``keep_newest`` spends it on the newest lines first, every read nested in
a batch spends the batch's, and ``fit`` trims what a tool left over the budget.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from muxport._internal.client_limits import DEFAULT_BUDGET, known

SETTING = "MUXPORT_MAX_ANSWER_CHARS"  # MUXPORT_MAX_ANSWER_BYTES, its first name, still works
ENVELOPE = 2_000  # characters kept for an answer's other fields and its note
UNSEEN_KEY = "muxport/unseen"  # _meta: the fields structuredContent leaves out for a model
NOTE_ROOM = 400  # characters kept for the note ``fit`` adds
_operator: list[int | None] = [None]  # set once at startup (Environment.apply), then only read


def configure_answer_chars(limit: int | None) -> None:
    """The operator's budget (the setting), for every client; None: per client."""
    _operator[0] = limit


def budget_in_force(client_name: str | None) -> tuple[int, str]:
    """The answer budget for the client that named itself ``client_name``, and why: the
    operator's setting, else the client's own (client_limits.py), else the default."""
    if _operator[0] is not None:
        return _operator[0], f"{SETTING}={_operator[0]} set by the operator, for every client"
    row = known(client_name)
    if row is not None:
        return row.budget, (
            f"the client names itself {client_name!r}: {row.client} hands its model "
            f"{row.keeps:,} characters of an answer whole; {SETTING} overrides")
    return DEFAULT_BUDGET, (
        f"the default, under the smallest limit measured of the clients muxport knows "
        f"(client {client_name!r} is not one of them); {SETTING} overrides")


@dataclass
class AnswerBudget:
    """What one call's answer may still take, in characters of its JSON."""

    limit: int
    used: int = 0

    @property
    def left(self) -> int:
        """Characters the lines of this answer may still take (room kept for the rest)."""
        return max(0, self.limit - ENVELOPE - self.used)

    def spend(self, size: int) -> None:
        self.used += size


_current: ContextVar[AnswerBudget | None] = ContextVar("muxport_answer_budget", default=None)


def answer_budget() -> AnswerBudget | None:
    """The budget of the call being answered (None outside one: background work)."""
    return _current.get()


@contextmanager
def answering(budget: AnswerBudget | None) -> Iterator[None]:
    """Run a call (or background work, with None) under ``budget``."""
    token = _current.set(budget)
    try:
        yield
    finally:
        _current.reset(token)


def text_size(value: Any) -> int:
    """Characters of ``value`` as compact JSON, as a client shows ``structuredContent``."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def fit(data: dict[str, Any], limit: int) -> dict[str, Any] | None:
    """``data`` within ``limit`` characters of JSON: the largest list of the answer loses items
    (a list of lines its oldest, any other its last) until it fits, and ``note`` says what
    was left out; None when no list can make it fit."""
    if text_size(data) <= limit:
        return data
    cut: dict[str, int] = {}
    room = limit - NOTE_ROOM
    while text_size(data) > room:
        lists = [(text_size(v), k) for k, v in data.items() if isinstance(v, list) and v]
        if not lists:
            return None
        _, key = max(lists)
        items = data[key]
        over = text_size(data) - room
        per_item = max(1, text_size(items) // len(items))
        drop = min(len(items), max(1, -(-over // per_item)))
        lines = all(isinstance(item, str) for item in items)
        data[key] = items[drop:] if lines else items[:-drop]
        cut[key] = cut.get(key, 0) + drop
        if isinstance(data.get("truncated"), bool):
            data["truncated"] = True
    if cut:  # something was cut: the loop ran
        said = ", ".join(f"{count} of {key}" for key, count in cut.items())
        data["note"] = "; ".join(filter(None, (data.get("note"), (
            f"{said} left out to keep the answer within {limit:,} characters (the answer "
            f"budget, {SETTING}): ask for less, for one pane, window or session"))))
    return data


def answer_dict(model: BaseModel) -> dict[str, Any]:
    """An answer as the server sends it in ``structuredContent``, what Claude Code shows its
    model (docs/answers.md): JSON-ready, every field at its declared default left out, at
    every level (the output schema's ``default`` says what an absent field is; a field whose
    default is null is absent when not known), and what the text block leaves out too
    (``unseen``: those go to ``_meta``, ``answer_unseen``). A default made by a factory is
    not a declared value: such a field stays."""
    data: dict[str, Any] = model.model_dump(mode="json")
    _lean(model, data)
    return data


def unseen(model: BaseModel) -> set[str]:
    """Fields of ``model`` no model reads (docs/answers.md, "What a model reads"): its
    class's ``text_omits`` and its ``text_quiet`` fields at their quiet value. An empty
    ``text_body`` stays in ``structuredContent`` (``"output": []``): programs read the body
    by name, and the text block leaves it out anyway."""
    kind = type(model)
    quiet: dict[str, Any] = getattr(kind, "text_quiet", {})
    out = set(getattr(kind, "text_omits", frozenset()))
    out |= {key for key, value in quiet.items() if _same(getattr(model, key, None), value)}
    return out


def answer_unseen(model: BaseModel) -> dict[str, Any]:
    """What ``answer_dict`` leaves out of ``model`` for a program (``_meta``,
    ``muxport/unseen``): the fields no model reads that say something (not null, not an
    empty body)."""
    full = model.model_dump(mode="json", include=unseen(model))
    body = getattr(type(model), "text_body", None)
    return {key: value for key, value in full.items() if value is not None and key != body}


def answer_schema(model: type[BaseModel], schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (the output schema of ``model``) as ``answer_dict`` keeps it valid: the
    fields no model reads are optional with no default (absent: in ``_meta``), and the body
    is optional with the default ``[]`` (absent: no lines)."""
    omits = set(getattr(model, "text_omits", frozenset())) | set(getattr(model, "text_quiet", {}))
    body: str | None = getattr(model, "text_body", None)
    properties = {key: dict(value) for key, value in schema.get("properties", {}).items()}
    for key in omits & set(properties):
        properties[key].pop("default", None)
    if body in properties:
        properties[body]["default"] = []
    required = [key for key in schema.get("required", []) if key not in omits | {body}]
    out = {**schema, "properties": properties, "required": required}
    if not required:
        del out["required"]
    return out


def _lean(value: Any, dumped: Any) -> None:
    if isinstance(value, BaseModel) and isinstance(dumped, dict):
        hidden = unseen(value)
        for key, info in type(value).model_fields.items():
            current = getattr(value, key)
            if key in hidden or (not info.is_required() and info.default_factory is None
                                 and _same(current, info.default)):
                dumped.pop(key, None)
            elif key in dumped:
                _lean(current, dumped[key])
    elif isinstance(value, list | tuple) and isinstance(dumped, list):
        for item, out in zip(value, dumped, strict=False):
            _lean(item, out)
    elif isinstance(value, dict) and isinstance(dumped, dict):
        for key, item in value.items():
            if key in dumped:
                _lean(item, dumped[key])


def _same(value: Any, default: Any) -> bool:
    """``value`` is the default (a bool only as a bool: False is not 0)."""
    if isinstance(value, bool) or isinstance(default, bool):
        return type(value) is type(default) and value == default
    return bool(value == default)


def answer_text(model: BaseModel, data: dict[str, Any]) -> str:
    """The text block of an answer (docs/answers.md, "The text block"): ``data`` (the fields
    ``answer_dict`` kept) but the model's ``text_body`` as compact JSON on the first line,
    then the body's lines, one a line: a list of lines costs a newline each, not quotes and
    commas, and what clients keep of a text is its characters."""
    body_key: str | None = getattr(type(model), "text_body", None)
    body = data.get(body_key) if body_key else None
    # a line holding a newline (none that a pane shows) would read back as two: JSON then
    lines = isinstance(body, list) and all(isinstance(x, str) and "\n" not in x for x in body)
    head = {key: value for key, value in data.items() if not (key == body_key and lines)}
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
    if lines and body:
        text += "\n" + "\n".join(body)
    return text


@dataclass(frozen=True)
class Shaped:
    """An answer as it goes out: ``structuredContent``, the text block, and ``_meta``'s
    fields no model reads."""

    data: dict[str, Any]
    text: str
    unseen: dict[str, Any]


def shape(model: BaseModel, limit: int) -> Shaped | None:
    """``model`` as it goes out within ``limit`` characters, each form (a client shows its
    model one or the other: docs/answers.md); None when no cut makes it fit."""
    data = fit(answer_dict(model), limit)
    if data is None:
        return None
    text = answer_text(model, data)
    # structuredContent's JSON is never shorter than the text; both are checked all the same
    if max(len(text), text_size(data)) > limit:
        return None
    return Shaped(data, text, answer_unseen(model))

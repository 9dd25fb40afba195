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
    """An answer as the server sends it: JSON-ready, every field at its declared default left
    out, at every level (the output schema's ``default`` says what an absent field is; a
    field whose default is null is absent when not known). A default made by a factory (an
    empty list) is not a declared value: such a field stays."""
    data: dict[str, Any] = model.model_dump(mode="json")
    _lean(model, data)
    return data


def _lean(value: Any, dumped: Any) -> None:
    if isinstance(value, BaseModel) and isinstance(dumped, dict):
        for key, info in type(value).model_fields.items():
            current = getattr(value, key)
            if (not info.is_required() and info.default_factory is None
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
    """The text block of an answer (docs/answers.md, "The text block"): ``data``'s fields
    but the model's ``text_omits`` and ``text_body`` as compact JSON on the first line, then
    the body's lines, one a line: a list of lines costs a newline each, not quotes and
    commas, and what clients keep of a text is its characters."""
    body_key: str | None = getattr(type(model), "text_body", None)
    omits: frozenset[str] = getattr(type(model), "text_omits", frozenset())
    quiet: dict[str, Any] = getattr(type(model), "text_quiet", {})
    body = data.get(body_key) if body_key else None
    # a line holding a newline (none that a pane shows) would read back as two: JSON then
    lines = isinstance(body, list) and all(isinstance(x, str) and "\n" not in x for x in body)
    head = {key: value for key, value in data.items()
            if not (key == body_key and lines) and key not in omits
            and not (key in quiet and _same(value, quiet[key]))}
    text = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
    if lines and body:
        text += "\n" + "\n".join(body)
    return text

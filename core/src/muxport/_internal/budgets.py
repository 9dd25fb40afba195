"""Reading costs context: line and character budgets, wait ceilings (docs/runs-and-waits.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic_core import core_schema

from muxport._internal.answers import answer_budget

DEFAULT_LINES = 200
MAX_LINES = 5000
MAX_CHARS = 200_000
DEFAULT_WAIT = 30.0
WAIT_CEILING = 120.0
WAIT_CEILING_LIMIT = 600.0
PROGRESS_EVERY = 2.0


def clamp_lines(requested: int | None) -> int:
    """The line budget actually used: default 200, clamped to 1..5000 (never refused)."""
    if requested is None:
        return DEFAULT_LINES
    return max(1, min(MAX_LINES, requested))


_ceiling: list[float] = []  # set once (Environment.apply at startup), then only read


def configure_wait_ceiling(seconds: float) -> None:
    """Fix the wait ceiling for this process (startup, after validation)."""
    _ceiling[:] = [max(1.0, min(WAIT_CEILING_LIMIT, seconds))]


def wait_ceiling() -> float:
    """120 s, or ``LIBTMUX_MCP_WAIT_MAX_SECONDS`` (at most 600): read once, not per call.

    The launcher validates the variable before anything is served (a bad value stops
    startup); a server built in process without it reads the variable once here."""
    if not _ceiling:
        raw = os.environ.get("LIBTMUX_MCP_WAIT_MAX_SECONDS", "")
        try:
            configure_wait_ceiling(float(raw) if raw else WAIT_CEILING)
        except ValueError:
            configure_wait_ceiling(WAIT_CEILING)
    return _ceiling[0]


class Ceiling:
    """The wait ceiling as a ``timeout``'s bound: the schema's ``maximum`` (read when the
    schema is made, at startup) and the check, so a client validating by the schema and the
    server refuse the same values (docs/runs-and-waits.md)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(self, schema: Any, handler: GetJsonSchemaHandler) -> Any:
        result = handler(schema)
        ceiling = wait_ceiling()
        result["maximum"] = int(ceiling) if ceiling.is_integer() else ceiling
        return result

    @staticmethod
    def check(seconds: float) -> float:
        if seconds > wait_ceiling():
            raise ValueError(
                f"at most {wait_ceiling():g} seconds (the wait ceiling; "
                f"LIBTMUX_MCP_WAIT_MAX_SECONDS raises it up to {WAIT_CEILING_LIMIT:g}); to wait "
                "longer, call again when this wait times out"
            )
        return seconds


def effective_timeout(requested: float | None) -> float:
    """The wait actually granted: default 30 s, clamped to (0, ceiling]."""
    if requested is None:
        return min(DEFAULT_WAIT, wait_ceiling())
    return max(0.0, min(wait_ceiling(), requested))


@dataclass(frozen=True)
class Bounded:
    """Lines kept after the budgets, newest last; ``answer_full``: the answer budget, not
    the line or character budget, stopped them (the note names the budget)."""

    lines: list[str]
    truncated: bool
    lines_dropped: int
    answer_full: bool = False


def line_size(line: str) -> int:
    """Characters a line takes in an answer's JSON: its JSON string and a separator (never
    fewer than in the text block, where it takes itself and a newline)."""
    return len(json.dumps(line, ensure_ascii=False)) + 1


def _tail(line: str, room: int) -> str:
    """The longest tail of ``line`` whose JSON string fits ``room`` characters."""
    tail = line[-room:]
    while tail and line_size(tail) > room:
        tail = tail[max(1, len(tail) - len(tail) * room // line_size(tail)):]
    return tail


def keep_newest(lines: Sequence[str], max_lines: int, max_chars: int = MAX_CHARS) -> Bounded:
    """Keep the newest lines within the line and character budgets and what is left of the
    call's answer budget (answers.py), which they spend; one enormous line keeps its tail."""
    budget = answer_budget()
    room_json = budget.left if budget is not None else None
    kept: list[str] = []
    used = spent = 0
    full = False
    for line in reversed(lines[-max_lines:] if max_lines > 0 else []):
        room = max_chars - used
        size = line_size(line) if room_json is not None else 0
        if room_json is not None and spent + size > room_json:
            full = True
            if not kept and room_json > 2:
                kept.append(_tail(line[-room:], room_json))
                spent = room_json
            break
        if room <= 0:
            break
        if len(line) > room:
            if not kept:
                kept.append(line[-room:])
                used = max_chars
            break
        kept.append(line)
        used += len(line) + 1
        spent += size
    if budget is not None:
        budget.spend(spent)
    kept.reverse()
    dropped = len(lines) - len(kept)
    clipped = bool(kept) and len(kept[0]) < len(lines[len(lines) - len(kept)])
    return Bounded(kept, dropped > 0 or clipped, dropped, full and (dropped > 0 or clipped))



class Limits:
    """How much a read or a wait may take, in one place for a toolset (docs/plugin-contract.md,
    "muxport.policy"); never instantiated."""

    DEFAULT_LINES = DEFAULT_LINES  # an answer's ``max_lines`` default
    MAX_LINES = MAX_LINES  # the largest line budget: the schema's maximum of ``MaxLines``
    MAX_CHARS = MAX_CHARS  # the character budget of one answer's lines
    DEFAULT_WAIT = DEFAULT_WAIT  # an answer's ``effective_timeout`` default
    Bounded: TypeAlias = Bounded  # what ``keep_newest`` returns

    @staticmethod
    def lines(requested: int | None) -> int:
        """The line budget used: default 200, 1..5000."""
        return clamp_lines(requested)

    @staticmethod
    def wait(requested: float | None) -> float:
        """The wait granted: default 30 s, up to the wait ceiling."""
        return effective_timeout(requested)

    @staticmethod
    def keep_newest(lines: Sequence[str], max_lines: int, max_chars: int = MAX_CHARS) -> Bounded:
        """The newest lines within the line and character budgets and what is left of the
        call's answer budget, which they spend."""
        return keep_newest(lines, max_lines, max_chars)

"""Regular expressions from clients, refused when they could stall the server.

Python's ``re`` has no time limit and matching runs on the event loop, so a pattern
with catastrophic backtracking (``(a+)+$``, ``(\\w*)*x``) would freeze every call. Such
shapes are refused up front: an unbounded repeat inside another unbounded repeat, an
alternation inside an unbounded repeat (``(a|aa)+``), and backreferences; and a regex
only ever sees the last ``MAX_SUBJECT`` characters of a line (``search``).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

UNBOUNDED = 100  # a repeat with a larger upper bound counts as unbounded
MAX_SUBJECT = 8192  # characters of a line a client's regex is run on (its end is kept)
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None))


def _unbounded_repeat_inside(items: Any, inside: bool) -> str | None:
    for op, value in items:
        if op in _REPEATS and op is not None:
            _, high, sub = value
            unbounded = high is sre.MAXREPEAT or high > UNBOUNDED
            if unbounded and inside:
                return "a repeat inside a repeat (like (a+)+) can take exponential time"
            found = _unbounded_repeat_inside(sub, inside or unbounded)
        elif op is sre.GROUPREF or op is sre.GROUPREF_EXISTS:
            return "backreferences can take exponential time"
        elif op is sre.SUBPATTERN:
            found = _unbounded_repeat_inside(value[-1], inside)
        elif op is sre.BRANCH and inside:
            return "an alternation inside a repeat (like (a|aa)+) can take exponential time"
        elif op is sre.BRANCH:
            found = next(
                (f for f in (_unbounded_repeat_inside(b, inside) for b in value[1]) if f), None
            )
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            found = _unbounded_repeat_inside(value[1], inside)
        else:
            found = None
        if found:
            return found
    return None


def compile_user_regex(text: str) -> re.Pattern[str]:
    """Compile a client's pattern; ``ValueError`` says why it is refused."""
    try:
        compiled = re.compile(text)
    except re.error as exc:
        raise ValueError(f"it does not compile ({exc})") from None
    danger = _unbounded_repeat_inside(_parser.parse(text), False)
    if danger:
        raise ValueError(f"it is refused: {danger}; simplify it")
    return compiled


def search(compiled: re.Pattern[str], line: str) -> int:
    """Where ``compiled`` first matches ``line`` (-1: nowhere), looking at its last
    ``MAX_SUBJECT`` characters only, so that matching time stays bounded."""
    offset = max(0, len(line) - MAX_SUBJECT)
    found = compiled.search(line, offset)
    return -1 if found is None else found.start()

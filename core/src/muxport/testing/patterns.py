"""Hostile client patterns: RE2 patterns of at most 4,096 bytes (the largest a tool takes)
that cost RE2 the most, for tests that no pattern holds other calls (docs/reliability.md,
"Client regexes"). Some are refused as ``pattern_too_costly``, some are legal and slow; the
names say which shape each one is, not what muxport does with it.
"""

from __future__ import annotations

import random

MAX_BYTES = 4096


def _joined(parts: list[str], sep: str = "|", limit: int = MAX_BYTES) -> str:
    """As many of ``parts`` as fit in ``limit`` UTF-8 bytes, joined by ``sep``."""
    out: list[str] = []
    size = -len(sep)
    for part in parts:
        grown = size + len(sep) + len(part.encode())
        if grown > limit:
            break
        out.append(part)
        size = grown
    return sep.join(out)


def _padded(pattern: str) -> str:
    """``pattern`` grown to 4,096 bytes by a class that costs RE2 one instruction."""
    room = MAX_BYTES - len(pattern.encode()) - len("|[]")
    return f"{pattern}|[{'q' * room}]"


def _words(count: int) -> list[str]:
    draw = random.Random(21)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(draw.choice(letters) for _ in range(draw.randint(4, 10))) for _ in range(count)]


HOSTILE_PATTERNS: dict[str, str] = {
    # alternations of counted repeats (issue 21: 3,301 bytes of these held the loop 24.9 s)
    "counted alternation": _joined([f"a{{{1000 - i}}}" for i in range(1000)]),
    "counted alternation, tails": _joined([f"a{{{900 - i % 900}}}b" for i in range(1000)]),
    "counted alternation, legal": _padded("a{1000}b|a{999}c|a{998}d|a{997}e"),
    "optional counted": _joined([f"a{{0,{1000 - i}}}" for i in range(1000)], sep=""),
    "optional counted, legal": _padded("a{0,1000}b"),
    "optional chain": "a?" * (MAX_BYTES // 2),
    # nested repeats
    "nested counted": _joined([f"((a{{{10 + i % 20}}}){{10}}){{5}}" for i in range(500)]),
    "nested stars": _joined([f"((a*)*(b+)+){{{5 + i % 50}}}" for i in range(500)]),
    "nested, legal": _padded("(?:(?:[ab]{0,30}){30})c"),
    "classic backtracking": _padded(r"(a+)+$|(\w*)*x|.*.*.*=.*"),
    # large character classes
    "unicode class repeated": _joined([rf"\pL{{{999 - i}}}" for i in range(999)]),
    "unicode classes written out": r"\pL" * (MAX_BYTES // 3),
    "folded unicode classes": "(?i)" + r"[\pL\pN]" * ((MAX_BYTES - 4) // 8),
    "wide class repeated": _joined([rf"[\x{{80}}-\x{{10FFFF}}]{{{999 - i}}}" for i in range(999)]),
    "unicode class, legal": _padded(r"\pL{4}x"),
    "unicode class, long repeat": _padded(r"\pL{99}"),
    "wide class, long repeat": _padded(r"[\x{80}-\x{10FFFF}]{999}"),
    # long literal alternations
    "literal alternation": _joined(_words(2000)),
    "folded literal alternation": "(?i)" + _joined(_words(2000), limit=MAX_BYTES - 4),
}

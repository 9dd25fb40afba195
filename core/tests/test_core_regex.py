"""Client regexes that could stall the event loop are refused; the rest are bounded."""

from __future__ import annotations

import re

import pytest
from muxport._internal.regex import MAX_SUBJECT, compile_user_regex, search


@pytest.mark.parametrize("pattern", ["ready", r"^\d+ ms$", r"[a-z]+@[a-z]+\.com", r"(?:ab)+c"])
def test_ordinary_patterns_compile(pattern: str) -> None:
    assert compile_user_regex(pattern).pattern == pattern


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a+)+$", "repeat inside a repeat"),
        (r"(\w*)*x", "repeat inside a repeat"),
        (r"(a|aa)+$", "alternation inside a repeat"),
        (r"(a)\1", "backreferences"),
        ("(", "does not compile"),
    ],
)
def test_catastrophic_or_broken_patterns_are_refused(pattern: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        compile_user_regex(pattern)


def test_matching_sees_only_the_end_of_a_huge_line() -> None:
    compiled = compile_user_regex(r"x.*y.*z")
    line = "x" * 300_000 + "y"  # no z: quadratic in the whole line, bounded in the tail
    assert search(compiled, line) == -1  # without the bound this would not finish in time
    assert search(compile_user_regex("end"), "a" * (MAX_SUBJECT * 3) + "end") == MAX_SUBJECT * 3

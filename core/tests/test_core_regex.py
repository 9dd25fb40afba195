"""Client regexes run on RE2: everyday patterns are accepted, what RE2 cannot do in linear
time is refused with its own message, and a search only sees a line's last characters."""

from __future__ import annotations

import re
import time

import pytest
from muxport._internal.regex import MAX_SUBJECT, compile_user_regex, search


@pytest.mark.parametrize(
    "pattern",
    ["ready", r"^\d+ ms$", r"[a-z]+@[a-z]+\.com", r"(?:ab)+c", r"(\d+\.)+\d+", r"(error|warn)+",
     r"(a+)+$", r"(\w*)*x"],
)
def test_ordinary_and_nested_patterns_compile(pattern: str) -> None:
    assert compile_user_regex(pattern).pattern == pattern


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a)\1", "backreferences are not supported"),
        (r"a(?=b)", "lookahead and lookbehind are not supported"),
        ("(", "missing )"),
    ],
)
def test_what_re2_cannot_do_is_refused_in_its_words(pattern: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)) as info:
        compile_user_regex(pattern)
    assert str(info.value).startswith("RE2 refuses it: ")


@pytest.mark.parametrize(("pattern", "subject"), [(r".*.*.*x", "a" * 8192), (r"\s*\s*\s*\s*$",
                         " " * 8191 + "a")])
def test_polynomial_patterns_stay_linear(pattern: str, subject: str) -> None:
    compiled = compile_user_regex(pattern)
    started = time.perf_counter()
    search(compiled, subject)
    assert time.perf_counter() - started < 0.05


def test_matching_sees_only_the_end_of_a_huge_line() -> None:
    assert search(compile_user_regex("start"), "start" + "a" * MAX_SUBJECT) == -1
    assert search(compile_user_regex("end"), "a" * (MAX_SUBJECT * 3) + "end") == MAX_SUBJECT * 3
    assert search(compile_user_regex("é+"), "xxéé") == 2  # offsets in characters, not bytes

"""Client regexes run on RE2: everyday patterns are accepted, what RE2 cannot do in linear
time is refused with its own message and the right hint, what would cost too much is refused
as pattern_too_costly naming the limit, and a search only sees a line's last characters."""

from __future__ import annotations

import re
import time

import anyio
import pytest
from muxport._internal import regex
from muxport._internal.regex import (
    MAX_SUBJECT,
    MatchBudget,
    PatternTooCostly,
    compile_pattern,
    search,
)
from muxport._internal.regex_work import compile_user_regex, match_off_loop

pytestmark = pytest.mark.timeout(30)


def find(pattern: str, line: str) -> int:
    """``search`` as a worker thread runs it: inside a pass of a budget."""
    budget = MatchBudget()
    budget.begin()
    return regex.search(compile_pattern(pattern), line, budget)


@pytest.mark.parametrize(
    "pattern",
    ["ready", r"^\d+ ms$", r"[a-z]+@[a-z]+\.com", r"(?:ab)+c", r"(\d+\.)+\d+", r"(error|warn)+",
     r"(a+)+$", r"(\w*)*x", r"\b\d{1,3}(\.\d{1,3}){3}\b", r"x.{0,100}y", "a{0,1000}", r"a{1000}",
     r"[\pL\pN_]+", r"(?i)error|warn(ing)?|fatal", r"\Qa{5}\E", r"(?P<n>\d+) (?<m>\w)"],
)
def test_ordinary_and_nested_patterns_compile(pattern: str) -> None:
    assert compile_pattern(pattern).pattern == pattern


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a)\1", "a backreference; backreferences are not supported"),
        (r"(?P<n>a)(?P=n)", "(?P=name) is a backreference; backreferences are not supported"),
        (r"a(?=b)", "lookahead and lookbehind are not supported"),
        (r"(?<!a)b", "lookahead and lookbehind are not supported"),
        (r"(?P<n>a)(?P>n)", "recursion is not supported"),
        ("(", "missing )"),
    ],
)
def test_what_re2_cannot_do_is_refused_in_its_words(pattern: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)) as info:
        compile_pattern(pattern)
    assert str(info.value).startswith("RE2 refuses it: ")


def test_a_named_backreference_gets_no_lookaround_hint() -> None:
    with pytest.raises(ValueError) as info:
        compile_pattern(r"(?P<n>a)(?P=n)")
    assert "lookahead" not in str(info.value)


@pytest.mark.parametrize(
    ("pattern", "limit"),
    [
        ("|".join(f"a{{{1000 - i}}}" for i in range(330)), regex.MAX_EXPANDED),  # 3.3 KB
        ("a{0,1000}b{0,1000}", regex.MAX_OPTIONAL),
        ("a?" * 2000, regex.MAX_OPTIONAL),
        (r"\pL" * 20, regex.MAX_UNICODE_CLASSES),
        (r"\pL{99}", regex.MAX_PROGRAM),
        ("a{1000}b|a{999}c|a{998}d|a{997}e|a{996}f|a{995}g", regex.MAX_PROGRAM),
    ],
)
def test_costly_patterns_are_refused_naming_the_limit(pattern: str, limit: int) -> None:
    with pytest.raises(PatternTooCostly) as info:
        compile_pattern(pattern)
    error = info.value
    assert error.code == "pattern_too_costly" and not error.retryable
    assert error.data["limit"] == limit and error.data["measured"] > limit
    assert f"more than {limit}" in error.message and "; " in error.message  # the fix follows


def test_the_program_size_is_measured() -> None:
    compiled = compile_pattern("a{1000}")
    assert 1000 < compiled.program_size <= regex.MAX_PROGRAM


@pytest.mark.parametrize(("pattern", "subject"), [(r".*.*.*x", "a" * 8192), (r"\s*\s*\s*\s*$",
                         " " * 8191 + "a")])
def test_polynomial_patterns_stay_linear(pattern: str, subject: str) -> None:
    started = time.perf_counter()
    find(pattern, subject)
    assert time.perf_counter() - started < 0.05


def test_matching_sees_only_the_end_of_a_huge_line() -> None:
    assert find("start", "start" + "a" * MAX_SUBJECT) == -1
    assert find("end", "a" * (MAX_SUBJECT * 3) + "end") == MAX_SUBJECT * 3
    assert find("é+", "xxéé") == 2  # offsets in characters, not bytes


def test_search_outside_a_matching_pass_is_a_bug() -> None:
    with pytest.raises(RuntimeError, match="match_off_loop"):
        search(compile_pattern("a"), "a", MatchBudget())


async def test_a_search_that_outruns_its_cpu_time_is_too_costly() -> None:
    compiled = await compile_user_regex("a{1000}b|a{999}c|a{998}d|a{997}e")  # legal, slow
    budget = MatchBudget(0.05)
    with pytest.raises(PatternTooCostly) as info:
        await match_off_loop(budget, lambda: [search(compiled, "a" * 8192, budget)
                                              for _ in range(100)])
    assert info.value.data["limit"] == 0.05
    assert "CPU time" in info.value.message
    assert budget.spent >= 0.05  # charged to the call, in the thread that matched


async def test_the_event_loop_turns_while_a_pattern_matches() -> None:
    compiled = await compile_user_regex("a{1000}b|a{999}c|a{998}d|a{997}e")
    budget = MatchBudget(0.5)
    gaps: list[float] = []

    async def tick() -> None:
        last = time.monotonic()
        while True:
            await anyio.sleep(0.005)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        with pytest.raises(PatternTooCostly):
            await match_off_loop(budget, lambda: [search(compiled, "a" * 8192, budget)
                                                  for _ in range(100)])
        group.cancel_scope.cancel()
    assert len(gaps) > 10 and max(gaps) < 0.05, max(gaps)

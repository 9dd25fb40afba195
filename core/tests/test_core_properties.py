"""Properties of the core's pure logic: budgets (docs/runs-and-waits.md) and what tmux's
output means (docs/tmux-facts.md), for any input hypothesis finds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from muxport import NotFound, ServerGone, TmuxFailed, classify
from muxport._internal.budgets import wait_ceiling
from muxport._internal.facts import GONE_MARKERS, OBJECT_KINDS
from muxport._internal.objects import END, SEP, records
from muxport.policy import Limits
from muxport.testing import FakeTmux, TmuxResult

lines_ = st.lists(st.text(max_size=40), max_size=60)


@given(lines_, st.integers(min_value=-3, max_value=80), st.integers(min_value=1, max_value=400))
def test_keep_newest_keeps_the_newest_lines_within_both_budgets(lines, max_lines, max_chars):
    kept = Limits.keep_newest(lines, max_lines, max_chars)
    n = len(kept.lines)
    assert n <= max(0, max_lines)
    assert sum(len(line) for line in kept.lines) <= max_chars
    assert kept.lines_dropped == len(lines) - n
    if n:
        first = lines[len(lines) - n]
        assert first.endswith(kept.lines[0])  # the oldest kept line may keep only its tail
        assert kept.lines[1:] == lines[len(lines) - n + 1 :]  # the rest exactly, newest last
        clipped = kept.lines[0] != first
    else:
        clipped = False
    assert kept.truncated == (kept.lines_dropped > 0 or clipped)


@given(lines_, st.integers(min_value=1, max_value=80))
def test_keep_newest_drops_nothing_that_fits(lines, max_lines):
    if len(lines) > max_lines or sum(len(line) + 1 for line in lines) > Limits.MAX_CHARS:
        return
    kept = Limits.keep_newest(lines, max_lines)
    assert (kept.lines, kept.truncated, kept.lines_dropped) == (list(lines), False, 0)


@given(st.text(min_size=1, max_size=500), st.integers(min_value=1, max_value=100))
def test_one_enormous_line_keeps_its_tail(line, max_chars):
    kept = Limits.keep_newest(["older", line], 10, max_chars)
    if len(line) > max_chars:
        assert kept.lines == [line[-max_chars:]] and kept.truncated


@given(st.one_of(st.none(), st.integers(min_value=-10**9, max_value=10**9)))
def test_line_budget_is_clamped_never_refused(requested):
    budget = Limits.lines(requested)
    assert 1 <= budget <= 5000
    assert budget == (200 if requested is None else max(1, min(5000, requested)))


@given(st.one_of(st.none(), st.floats(min_value=0, max_value=10**6, allow_nan=False)))
def test_wait_is_clamped_to_the_ceiling(requested):
    granted = Limits.wait(requested)
    assert 0 <= granted <= wait_ceiling()
    if requested is not None and requested <= wait_ceiling():
        assert granted == requested


noise = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60)


@given(noise, st.sampled_from(GONE_MARKERS), noise)
def test_a_gone_marker_anywhere_means_the_server_is_gone(before, marker, after):
    assert classify(before + marker + after) == "gone"


@given(st.sampled_from(sorted(OBJECT_KINDS)), st.integers(min_value=0, max_value=10**6))
def test_a_missing_target_is_named_with_its_listing_tool(kind, number):
    prefix, tool = OBJECT_KINDS[kind]
    stderr = f"can't find {kind}: {prefix}{number}\n"
    assert classify(stderr) == "missing"
    error = FakeTmux().failure(TmuxResult(1, "", stderr))
    assert isinstance(error, NotFound)
    assert error.data == {"kind": kind, "target": f"{prefix}{number}"}
    assert tool in error.message


@given(noise)
def test_other_stderr_is_a_tmux_failure_quoting_tmux(text):
    if classify(text) != "failed":
        return
    error = FakeTmux().failure(TmuxResult(1, "", text))
    assert isinstance(error, TmuxFailed) and not isinstance(error, ServerGone | NotFound)
    assert error.delivery == "possibly_sent"


def quoted(value: str) -> str:
    """What #{q:} makes of ``value`` (format_quote_shell, format.c)."""
    return "".join("\\" + ch if ch in "|&;<>()$`\\\"'*?[# =%" else ch for ch in value)


def octal_pass(line: str) -> str:
    """tmux 3.4/3.5a's VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH pass over a printed line (not
    tab or newline; backslash left alone)."""
    cstyle = {"\r": "\\r", "\b": "\\b", "\a": "\\a", "\v": "\\v", "\f": "\\f"}
    def vis(ch: str) -> str:
        if ch in cstyle:
            return cstyle[ch]
        control = (ord(ch) < 32 and ch not in "\t\n") or ord(ch) == 127
        return f"\\{ord(ch):03o}" if control else ch

    return "".join(vis(ch) for ch in line)


@given(
    st.lists(st.lists(st.text(max_size=20), min_size=1, max_size=5), max_size=10),
    st.booleans(),
)
def test_records_split_what_fmt_joined(rows, escaped):
    printed = "".join(SEP.join(quoted(v) for v in row) + END + "\n" for row in rows)
    stdout = octal_pass(printed) if escaped else printed
    assert records(stdout) == rows


@pytest.mark.parametrize("stderr", ["no current target", "no such window: @4"])
def test_known_missing_messages(stderr):
    assert classify(stderr) == "missing"

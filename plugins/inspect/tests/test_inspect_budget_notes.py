"""A capture's note says why lines are missing and gives only advice that helps: no "raise
max_lines" when max_lines is already the most, nor when the character budget left them out."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from muxport.policy import Limits
from muxport_inspect.screen import bounded, older_note

pytestmark = pytest.mark.timeout(30)


def note(lines: list[str], max_lines: int | None) -> Any:
    args = SimpleNamespace(max_lines=max_lines, skip=0, history=False)
    screen = SimpleNamespace(lines=lines, hidden=[0] * (len(lines) + 1))
    return bounded(screen, args)  # type: ignore[arg-type]


@pytest.mark.parametrize("max_lines", [None, 200, Limits.MAX_LINES])
def test_a_huge_line_left_out_by_the_character_budget_is_not_a_line_budget_matter(max_lines):
    fields = note(["x" * 400_000, "$ "], max_lines)
    assert fields["lines_dropped"] == 1
    assert "raise max_lines" not in fields["note"]
    assert f"{Limits.MAX_CHARS}-character budget" in fields["note"], fields["note"]


def test_a_huge_only_line_is_cut_not_advised_about():
    fields = note(["x" * 400_000], Limits.MAX_LINES)
    assert fields["truncated"] and fields["lines_dropped"] == 0
    assert "raise max_lines" not in fields["note"] and "cut" in fields["note"]


def test_lines_left_out_by_a_line_budget_below_the_most_say_raise_it():
    fields = note([f"line {i}" for i in range(300)], 100)
    assert fields["lines_dropped"] == 200
    assert f"raise max_lines (up to {Limits.MAX_LINES})" in fields["note"]


def test_lines_left_out_at_the_most_do_not_say_raise_it():
    fields = note([f"line {i}" for i in range(Limits.MAX_LINES + 7)], Limits.MAX_LINES)
    assert fields["lines_dropped"] == 7
    assert "raise max_lines" not in fields["note"] and "capture_since" in fields["note"]


@pytest.mark.parametrize(
    ("kept", "why"),
    [
        (Limits.Bounded(["c", "d"], True, 3), "by max_lines 2"),
        (Limits.Bounded(["d"], True, 3, answer_full=True), "within the answer budget"),
        (Limits.Bounded(["d"], True, 3), f"by the {Limits.MAX_CHARS}-character budget"),
    ],
)
def test_a_watch_note_names_the_capture_pane_call_whatever_budget_cut(kept, why):
    """capture_since and wait_for_text: skip steps over the kept lines and what follows
    them on the pane (the prompt; blank rows below it are not lines of capture_pane)."""
    said = older_note(kept, 2, ["$", "", ""])
    assert why in said
    assert f"capture_pane with history: true, skip: {len(kept.lines) + 1} and max_lines: 3" in said


def test_a_watch_note_says_nothing_when_nothing_was_cut():
    assert older_note(Limits.Bounded(["a"], False, 0), 200, []) is None

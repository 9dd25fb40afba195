"""Pure logic of runs: how a cursor row is judged, and what a capture yields (issue 10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from muxport_execute.frames.base import extract
from muxport_execute.frames.local_files import Frame
from muxport_execute.pane.line_state import judge, prompt_like
from muxport_execute.pane.view import Line


@pytest.mark.parametrize(("left", "empty"), [
    ("$ ", True), ("", True), ("user@host:~/src$ ", True), ("host% ", True), ("$", True),
    ("➜  i10 git:(i10) ✗ ", True), ("❯ ", True), ("[main] λ ", True),
    ("$ echo hi", False), ("$ ls ", False), ("$ cd ..", False), ("$ echo 'a b", False),
])
def test_prompt_like(left: str, empty: bool) -> None:
    assert prompt_like(left) is empty


@pytest.mark.parametrize(("left", "above", "verdict"), [
    ("dquote> ", "$ echo \"a", "continuation"),
    ("heredoc> ", "$ cat <<EOF", "continuation"),
    ("> ", "$ echo 'open", "continuation"),
    ("> ", "$ echo a \\", "continuation"),
    ("> ", "$ for x in a b; do", "continuation"),
    ("> ", "some output", "empty"),  # a main prompt of "> "
    ("$ echo half", "", "text"),
    ("$ ", "", "empty"),
])
def test_judge(left: str, above: str, verdict: str) -> None:
    assert judge(Line(left, "", above, "", "dash"), "dash") == verdict


def frame() -> Frame:
    return Frame(nonce="a" * 32, channel="c", directory=Path("/nonexistent/mxr-x"))


def test_extract_never_returns_another_runs_lines() -> None:
    f = frame()
    other = "b" * 32
    capture = ["$  \\. '/tmp/mxr-y/run'", f"{other}:s", "old", f"{other}:e:0", "mine",
               f"{f.nonce}:e:3", "$"]
    got = extract(f, capture)  # the start marker was overwritten
    assert (got.lines, got.started, got.ended, got.status) == (["mine"], False, True, 3)


def test_extract_end_above_start_is_out_of_order() -> None:
    f = frame()
    got = extract(f, [f"{f.nonce}:e:0", "$", f.start_marker, "b"])
    assert got.out_of_order and not got.ended and got.lines == ["b"]


def test_extract_framed() -> None:
    f = frame()
    got = extract(f, ["$ x", f.start_marker, "a", f"partial{f.nonce}:e:1", "$"])
    assert (got.lines, got.started, got.ended, got.status) == (["a", "partial"], True, True, 1)

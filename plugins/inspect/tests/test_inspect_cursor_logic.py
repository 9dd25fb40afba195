"""Pure logic of watch cursors: signing, anchors, stepping, splitting a look."""

from __future__ import annotations

import pytest
from muxport import InvalidArgument
from muxport.testing import tool_context
from muxport_inspect.cursors import Signer, find_anchor, issue, line_hash
from muxport_inspect.looking import Look, look, step


def make_look(
    finished: list[str], cursor_line: str = "$ ", top: int = 0, hs: int = 0, full: bool = False
) -> Look:
    return Look(
        "%1", hs, len(finished) - hs + top, 24, 42, False, "$0", top, finished, cursor_line, [],
        history_full=full,
    )


def test_signed_cursor_round_trips_and_refuses_edits():
    signer = Signer(b"k" * 32)
    state = issue("%1", 42, 7, ["a", "b"], "$ ")
    token = signer.encode(state)
    assert signer.decode(token, "%1", 42) == state
    with pytest.raises(InvalidArgument, match="respawned"):
        signer.decode(token, "%1", 43)
    with pytest.raises(InvalidArgument, match="belongs to pane %1"):
        signer.decode(token, "%2", 42)
    with pytest.raises(InvalidArgument, match="not issued by this muxport"):
        Signer(b"x" * 32).decode(token, "%1", 42)
    body = token.split(".")[1]
    forged = token.replace(body, body[:-2] + ("AA" if body[-2:] != "AA" else "BB"))
    with pytest.raises(InvalidArgument, match="omit the cursor"):
        signer.decode(forged, "%1", 42)


def test_anchor_prefers_the_occurrence_where_row_arithmetic_puts_it():
    hashes = [line_hash(x) for x in ["ok", "ok", "ok", "ok", "ok", "ok"]]
    anchors = [line_hash("ok")] * 2
    assert find_anchor(hashes, anchors, expected_end=2) == 2
    assert find_anchor(hashes, anchors, expected_end=None) == 5
    assert find_anchor(hashes, [line_hash("gone")], expected_end=3) is None


def test_step_delivers_lines_after_the_anchor_and_detects_loss():
    first = make_look(["one", "two", "three"])
    base = step(first, None, full=False)
    assert base is not None and base.lines == [] and base.continuous
    grown = make_look(["one", "two", "three", "four", "five"])
    after = step(grown, base.state, full=False)
    assert after is not None and after.lines == ["four", "five"] and after.continuous
    # Scrolled: the window no longer starts at the top, but the anchor is inside it.
    scrolled = make_look(["two", "three", "four", "five", "six"], top=1, hs=1)
    moved = step(scrolled, after.state, full=False)
    assert moved is not None and moved.lines == ["six"] and moved.continuous
    # Anchor gone from a partial window: ask for the whole history; gone there: discontinuous.
    cleared = make_look(["fresh"], top=5, hs=5)
    assert step(cleared, moved.state, full=False) is None
    lost = step(cleared, moved.state, full=True)
    assert lost is not None and not lost.continuous and lost.lines == ["fresh"]


async def test_a_look_splits_finished_cursor_and_below(fake_tmux):
    # Screen of 5 rows, cursor on row 2: rows 3 and 4 are below it.
    fake_tmux.answers = {
        "display-message": "3|2|5|99|0|\\$1|2000&\n",
        "capture-pane": "h1\nh2\nh3\nrow0\nrow1\n$ par\n\n\n",
    }
    ctx = tool_context(fake_tmux, "capture_since")
    seen = await look(ctx, "%4", 10)
    assert seen.finished == ["h1", "h2", "h3", "row0", "row1"]
    assert seen.cursor_line == "$ par" and seen.below == ["", ""]
    assert seen.mark == 5 and seen.pane_pid == 99 and seen.session_id == "$1"
    assert not seen.history_full  # 3 of 2000 rows
    assert seen.screen() == ["row0", "row1", "$ par", "", ""]
    (display, capture) = fake_tmux.calls[0]
    assert display[0] == "display-message" and capture[:4] == ("capture-pane", "-p", "-J", "-t")


def test_a_cursor_is_at_most_64_characters_even_with_the_largest_fields():
    signer = Signer(b"k" * 32)
    state = issue("%999999999", 4_194_304, 2**32, ["a" * 500] * 9, "x" * 300)
    token = signer.encode(state)
    assert len(token) <= 64 and signer.decode(token, "%999999999", 4_194_304) == state
    assert "%" not in token and "999" not in token  # opaque: no readable fields
    with pytest.raises(InvalidArgument, match="not a muxport cursor"):
        signer.decode("c2.!!", "%1", 42)
    with pytest.raises(InvalidArgument, match="not a muxport cursor"):
        signer.decode("c1." + token[3:], "%999999999", 4_194_304)


def test_a_full_history_that_drops_the_anchors_first_lines_is_not_a_clear():
    """tmux drops a full history's oldest tenth at once: the anchor (the last 4 lines read)
    may lose its first lines while its last one still opens the history. Nothing was lost."""
    before = make_look([str(n) for n in range(1, 101)], hs=90, full=True)
    base = step(before, None, full=False)
    assert base is not None
    # 95 more lines; the history kept only from "99" on (97 and 98 were dropped)
    now = make_look(["99", "100", *[f"line-{n}" for n in range(1, 96)]], hs=87, full=True)
    result = step(now, base.state, full=True)
    assert result is not None and result.continuous and not result.outran
    assert result.lines == [f"line-{n}" for n in range(1, 96)]


def test_a_full_history_that_dropped_the_whole_anchor_outran_and_was_not_cleared():
    before = make_look([str(n) for n in range(1, 101)], hs=90, full=True)
    base = step(before, None, full=False)
    assert base is not None
    now = make_look([f"line-{n}" for n in range(46, 151)], hs=95, full=True)
    result = step(now, base.state, full=True)
    assert result is not None and not result.continuous and result.outran
    # the same loss in a history that is not full: the pane was cleared
    cleared = step(make_look(["fresh"], hs=0), base.state, full=True)
    assert cleared is not None and not cleared.continuous and not cleared.outran

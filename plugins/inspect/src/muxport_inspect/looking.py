"""One look at a pane for the watch tools: position and joined lines from ONE tmux invocation,
and the step from a cursor to the lines that followed it (docs/runs-and-waits.md).

A look captures the newest rows (or the whole history) with wrapped rows joined
(``-J``) down to the bottom of the screen. Rows below the cursor row are split off by
count (``pane_height - 1 - cursor_y``: they are blank in a shell, and never wrapped
into), the next one up is the cursor's line (unfinished: it may still grow), and the
lines above it are finished.

The rows of muxport's own runs (typed lines, markers: ``common.shown``) are left out of
what a look shows: the cursor's line and the rows below it, and the new lines a step
delivers (counted in ``Step.hidden``). The finished lines keep them, raw, for the cursor's
anchor: a row left out is still a row the reader has passed (docs/answers.md, "Plumbing").
"""

from __future__ import annotations

from dataclasses import dataclass

from muxport import TmuxFailed, ToolContext
from muxport.formats import fmt, head
from muxport.policy import without_plumbing

from muxport_inspect.common import shown
from muxport_inspect.cursors import (
    ANCHOR_LINES,
    CursorState,
    Signer,
    find_anchor,
    issue,
    line_hash,
)

POSITION = fmt(
    (
        "history_size", "cursor_y", "pane_height", "pane_pid", "pane_dead", "session_id",
        "history_limit",
    )
)
# Rows kept above the reader's window so that the anchor of a recent cursor is inside it.
MARGIN_ROWS = ANCHOR_LINES + 16


@dataclass(frozen=True)
class Look:
    pane_id: str
    history_size: int
    cursor_y: int
    height: int
    pane_pid: int
    dead: bool
    session_id: str
    top: int  # absolute row of the first captured row (0: top of history)
    finished: list[str]  # raw: the rows of runs too (the anchor's lines)
    cursor_line: str  # shown: without a run's plumbing
    below: list[str]  # shown
    # The history is full: tmux drops its oldest tenth at once whenever it fills again
    # (grid.c grid_collect_history), so its first lines come and go without any clear.
    history_full: bool = False

    @property
    def mark(self) -> int:
        """Absolute row of the cursor line: everything above it is finished."""
        return self.history_size + self.cursor_y

    def screen(self) -> list[str]:
        """The lines on the visible screen (approximately, when lines above are wrapped)."""
        visible = shown(self.finished[-self.cursor_y :])[0] if self.cursor_y else []
        return [*visible, self.cursor_line, *self.below]


def window_rows(budget: int) -> int:
    """History rows to capture for a reader whose line budget is ``budget``."""
    return budget + MARGIN_ROWS


async def look(ctx: ToolContext, pane_id: str, rows_back: int | None) -> Look:
    """Capture ``rows_back`` history rows (None: all) plus the screen, with the position."""
    start = "-" if rows_back is None else str(-rows_back)
    # read: many waits on one pane share one look (each still gets a fresh one).
    out = await ctx.tmux.read(
        ("display-message", "-p", "-t", pane_id, POSITION),
        ("capture-pane", "-p", "-J", "-t", pane_id, "-S", start, "-E", "-"),
    )
    fields, body = head(out.stdout)
    if len(fields) != 7 or not all(v.isdigit() for v in (*fields[:4], fields[6])):
        # A server or pane going away mid-answer leaves the values empty: ask once more, so
        # that is answered as server_gone / not_found rather than as a malformed answer.
        await ctx.tmux.run(("display-message", "-p", "-t", pane_id, "#{pane_id}"))
        raise TmuxFailed(
            f"unexpected answer from tmux for pane {pane_id}; call get_pane_info to check it"
        )
    hs, cy, height, pid = (int(v) for v in fields[:4])
    lines = body[:-1].split("\n") if body.endswith("\n") else body.split("\n")
    below_count = max(0, height - 1 - cy)
    cut = max(0, len(lines) - below_count)
    above, below = lines[:cut], lines[cut:]
    cursor_line = (without_plumbing(above.pop()) or "") if above else ""
    top = 0 if rows_back is None else max(0, hs - rows_back)
    limit = int(fields[6])
    return Look(
        pane_id, hs, cy, height, pid, fields[4] == "1", fields[5], top, above, cursor_line,
        shown(below)[0],
        history_full=hs >= limit - max(1, limit // 10),
    )


@dataclass(frozen=True)
class Step:
    """What a look adds to a cursor."""

    lines: list[str]  # finished lines after the cursor's anchor (unbounded, oldest first)
    continuous: bool
    state: CursorState  # the cursor after delivering ``lines``
    outran: bool = False  # not continuous because a full history dropped them, not a clear
    hidden: int = 0  # rows of muxport's runs left out of ``lines``


def _new(
    rows: list[str], continuous: bool, state: CursorState, outran: bool = False
) -> Step:
    """The step delivering the finished ``rows``, as a read shows them."""
    lines, hidden = shown(rows)
    return Step(lines, continuous, state, outran, sum(hidden))


def step(current: Look, state: CursorState | None, full: bool) -> Step | None:
    """The lines after ``state`` in ``current``; None when a full-history look is needed.

    ``full`` says ``current`` covers the whole history: an anchor missing there is gone.
    """
    after = issue(
        current.pane_id, current.pane_pid, current.mark, current.finished, current.cursor_line
    )
    if state is None:
        return Step([], True, after)
    covers_top = full or current.top == 0
    if not state.anchors:
        # Nothing was finished when the cursor was issued: everything finished now is new.
        if not covers_top:
            return None
        continuous = current.mark >= state.mark
        return _new(list(current.finished), continuous, after, current.history_full)
    hashes = [line_hash(line) for line in current.finished]
    expected = state.mark - 1 - current.top
    end = find_anchor(hashes, state.anchors, expected if expected >= 0 else None)
    if end is not None:
        return _new(current.finished[end + 1 :], True, after)
    if not covers_top:
        return None
    kept = _anchor_kept(hashes, state.anchors) if current.history_full else 0
    if kept:  # the anchor's first lines were dropped, its last ones start the history
        return _new(current.finished[kept:], True, after)
    return _new(list(current.finished), False, after, current.history_full)


def _anchor_kept(hashes: list[str], anchors: tuple[str, ...]) -> int:
    """How many of the anchor's last lines open ``hashes`` (the top of a full history)."""
    for kept in range(len(anchors) - 1, 0, -1):
        if hashes[:kept] == list(anchors[-kept:]):
            return kept
    return 0


async def advance(
    ctx: ToolContext,
    pane_id: str,
    state: CursorState | None,
    budget: int,
    token: tuple[Signer, str] | None = None,
) -> tuple[Look, Step]:
    """Look at the pane and step the cursor, capturing the whole history only when needed.

    ``token`` (a cursor string, with the signer that issued it) is checked against the
    pane's process seen by this look.
    """
    current = await look(ctx, pane_id, window_rows(budget))
    if token is not None:
        sign, cursor = token
        state = sign.decode(cursor, pane_id, current.pane_pid)
    result = step(current, state, full=False)
    if result is None:
        current = await look(ctx, pane_id, None)
        result = step(current, state, full=True)
        assert result is not None
    return current, result

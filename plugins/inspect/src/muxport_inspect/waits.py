"""The state of one wait_for_text call: its arguments, answer, and what counts as new output."""

from __future__ import annotations

import time
from typing import Literal

from muxport import Args, MaxLines, PaneId, Result, Timeout, ToolContext
from muxport.policy import Limits
from pydantic import Field

from muxport_inspect.common import HIDDEN_FIELD
from muxport_inspect.cursors import line_hash
from muxport_inspect.looking import Look, Step
from muxport_inspect.patterns import Hit, PatternList, Patterns
from muxport_inspect.screen import older_note

CURSOR_FIELD = Field(
    default=None,
    max_length=4096,
    description='from a capture_since or wait_for_text; "last": from the newest look',
)


class WaitForTextArgs(Args):
    pane_id: PaneId
    patterns: PatternList = Field(
        default=None, description="text to wait for (any one); none: any new output"
    )
    stop: PatternList = Field(
        default=None, description="text that ends the wait as a failure (an error message)"
    )
    regex: bool = Field(
        default=False, description="patterns are RE2 regular expressions (no backreferences)"
    )
    timeout: Timeout = None
    cursor: str | None = CURSOR_FIELD
    max_lines: MaxLines = None


Outcome = Literal["matched", "stopped", "timed_out", "present_at_entry", "pane_gone", "server_gone"]


class WaitForText(Result):
    # a model continues with cursor "last"; the timeout and max_lines used are the ones it asked for
    text_body = "output"
    text_omits = frozenset({"cursor", "effective_timeout", "max_lines"})
    outcome: Outcome
    matched: str | None = Field(default=None, description="the pattern (or stop pattern) found")
    matched_line: str | None = Field(default=None, description="the line it was found in")
    output: list[str] = Field(
        description="new output since the wait began (or since cursor), "
        "oldest first; the last item may be the unfinished line"
    )
    cursor: str | None = Field(
        default=None, description="pass it to the next wait_for_text or capture_since"
    )
    seconds: float = Field(description="seconds waited")
    effective_timeout: float = Field(default=Limits.DEFAULT_WAIT, description="the timeout used")
    hidden_rows: int = Field(default=0, description=HIDDEN_FIELD)
    truncated: bool = False
    lines_dropped: int = Field(default=0, description="older lines left out by the budgets")
    max_lines: int = Field(default=Limits.DEFAULT_LINES, description="the line budget used")


NOTES = {
    "matched": None,
    "stopped": "a stop pattern appeared: treat this as a failure and read output",
    "timed_out": "nothing matched in time; call wait_for_text again with cursor \"last\" to keep "
    "waiting without missing output, or capture_pane to see the screen",
    "present_at_entry": "the text was already on the screen when the wait began (not new); "
    "to wait for a new occurrence, wait again with cursor \"last\"",
    "pane_gone": "the pane no longer exists or its process exited; call list_panes",
    "server_gone": "the tmux server stopped; list_sessions shows whether one is running",
}


class Wait:
    """The state of one wait: cursor, new output so far, what counts as new."""

    def __init__(self, ctx: ToolContext, args: WaitForTextArgs, patterns: Patterns) -> None:
        self.ctx, self.args, self.patterns = ctx, args, patterns
        self.budget = Limits.lines(args.max_lines)
        self.timeout = Limits.wait(args.timeout)
        self.start = time.monotonic()
        self.output: list[str] = []
        self.hidden = 0  # rows of muxport's runs left out of the new output
        self.cursor_line = ""
        self.below: list[str] = []  # the rows below the cursor's line
        self.unfinished = ""
        self.cleared = False  # the pane was cleared while watched
        self.outran = False  # a full history dropped lines before a look could read them

    def finish(
        self, outcome: Outcome, hit: Hit | None = None, cursor: str | None = None
    ) -> WaitForText:
        tail = self.tail()
        kept = Limits.keep_newest(self.output + tail, self.budget)
        after = self.below if tail else [self.cursor_line, *self.below]
        notes = [NOTES[outcome], older_note(kept, self.budget, after)]
        if self.cleared:
            notes.append(
                "the pane was cleared while watched: output after the clear may not follow "
                "on from before"
            )
        if self.outran:
            notes.append(
                "more lines were printed than the pane's history keeps (history-limit): the "
                "oldest of them were dropped before they were read, so output may not follow "
                "on from before"
            )
        note = "; ".join(n for n in notes if n) or None
        return WaitForText(
            outcome=outcome,
            matched=hit.pattern if hit else None,
            matched_line=hit.line if hit else None,
            output=kept.lines,
            cursor=cursor,
            seconds=round(time.monotonic() - self.start, 3),
            effective_timeout=self.timeout,
            hidden_rows=self.hidden,
            truncated=kept.truncated or self.outran,  # lines lost off the top: issue 30
            lines_dropped=kept.lines_dropped,
            max_lines=self.budget,
            note=note,
        )

    def tail(self) -> list[str]:
        """The unfinished line, when it is new output."""
        changed = line_hash(self.cursor_line) != self.unfinished
        return [self.cursor_line] if self.cursor_line.strip() and (changed or self.output) else []

    async def absorb(self, current: Look, result: Step) -> Hit | None:
        """Add a look's new lines; the hit they (or the changed unfinished line) contain."""
        self.output.extend(result.lines)
        self.hidden += result.hidden
        self.cleared |= not result.continuous and not result.outran
        self.outran |= not result.continuous and result.outran
        self.cursor_line, self.below = current.cursor_line, current.below
        fresh = [*result.lines, *self.tail()]
        hit = await self.patterns.first(fresh)
        if hit is None and not self.patterns.any and fresh:
            hit = Hit(None, fresh[0])
        return hit

"""Screen reads: capture_pane and snapshot_pane, bounded by the budgets of docs/runs-and-waits.md.

The pane's metadata and cursor are read in the same tmux invocation as the capture,
so they describe the same moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from muxport import Args, MaxLines, PaneId, Result, ToolContext, tool
from muxport.formats import Pane, fmt, head
from muxport.policy import Limits
from pydantic import BaseModel, Field

from muxport_inspect.common import HIDDEN_FIELD, SCREEN, shown

MAX_CHARS, MAX_LINES = Limits.MAX_CHARS, Limits.MAX_LINES

HEADER = fmt(("cursor_x", "cursor_y", *Pane.FIELDS.values()))


class Cursor(BaseModel):
    x: int = Field(description="column of the pane's cursor, from 0")
    y: int = Field(description="row of the pane's cursor on the visible screen, from 0")


class CaptureArgs(Args):
    pane_id: PaneId
    history: bool = Field(
        default=False, description="with the scrollback"
    )
    max_lines: MaxLines = None
    skip: int = Field(default=0, ge=0, description="newest lines to leave out")


@dataclass(frozen=True)
class Screen:
    pane: Pane
    cursor: Cursor
    lines: list[str]  # without the rows of muxport's runs (common.shown)
    hidden: list[int]  # rows left out before each line, and after the last


def screen_lines(text: str) -> list[str]:
    """Logical lines of a ``capture-pane -J`` body, without trailing blanks or blank rows."""
    body = text[:-1] if text.endswith("\n") else text
    lines = [line.rstrip(" ") for line in body.split("\n")] if body else []
    while lines and not lines[-1]:
        lines.pop()
    return lines


async def read_screen(ctx: ToolContext, pane_id: str, history: bool) -> Screen:
    """The pane, its cursor and its (joined) screen lines from ONE tmux invocation."""
    span = ["-S", "-"] if history else []
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", pane_id, HEADER),
        ("capture-pane", "-p", "-J", "-t", pane_id, *span),
    )
    fields, body = head(out.stdout)
    x, y, rest = fields[0], fields[1], fields[2:]
    pane = Pane.read(rest, ctx.caller)
    lines, hidden = shown(screen_lines(body))
    while lines and not lines[-1]:  # blank once the rows below it were left out
        lines.pop()
        hidden[-2] += hidden.pop()
    return Screen(pane, Cursor(x=int(x or 0), y=int(y or 0)), lines, hidden)


def bounded(screen: Screen, args: CaptureArgs) -> dict[str, Any]:
    """The answer fields both reads share: the newest lines within the budgets, and why."""
    budget = Limits.lines(args.max_lines)
    end = max(0, len(screen.lines) - args.skip)
    lines = screen.lines[:end]
    kept = Limits.keep_newest(lines, budget)
    # the rows left out among the kept lines: each page (skip) counts the rows before its
    # lines, the newest page also those after them, so pages never count a row twice
    first = end - len(kept.lines)
    return {
        "content": kept.lines,
        "hidden_rows": sum(screen.hidden[first : end + (0 if args.skip else 1)]),
        "truncated": kept.truncated,
        "lines_dropped": kept.lines_dropped,
        "max_lines": budget,
        "note": budget_note(args, budget, kept, max(0, len(lines) - budget)),
    }


def budget_note(args: CaptureArgs, used: int, kept: Limits.Bounded, by_lines: int) -> str | None:
    """Why lines are missing, and only the advice that can help: a line budget already at
    its most is not worth raising, and no line budget brings back what the character
    budget left out; what the answer budget left out is paged back with ``skip``."""
    parts = []
    clipped = kept.truncated and kept.lines_dropped == 0
    if kept.answer_full and not kept.lines:
        parts.append("no room was left in the answer budget (the earlier reads of the batch "
                     "took it): call capture_pane on its own for these lines")
    elif kept.answer_full and kept.lines_dropped:
        same = "the same arguments and" if args.history else "history: true and"
        parts.append(
            f"{kept.lines_dropped} older lines were left out to keep the answer within the "
            f"answer budget (newest kept): capture_pane with {same} skip: "
            f"{args.skip + len(kept.lines)} returns the ones before"
        )
    else:
        if by_lines:
            more = f"raise max_lines (up to {MAX_LINES}) or " if used < MAX_LINES else ""
            parts.append(
                f"{by_lines} older lines were left out by max_lines {used} (newest kept); "
                f"{more}use capture_since to follow new output"
            )
        if kept.lines_dropped > by_lines:
            parts.append(
                f"{kept.lines_dropped - by_lines} older lines were left out by the "
                f"{MAX_CHARS}-character budget of one answer (newest kept; a larger max_lines "
                "would not bring them back)"
            )
    if clipped:
        why = "the answer budget" if kept.answer_full else f"the {MAX_CHARS}-character budget"
        parts.append(f"the oldest kept line was cut to its last characters ({why})")
    return "; ".join(parts) or None


def older_note(kept: Limits.Bounded, used: int, after: list[str]) -> str | None:
    """Why a watch's answer (capture_since, wait_for_text) lacks its oldest new lines, and
    the capture_pane call that returns them: ``after`` is what follows the kept lines on
    the pane (the cursor's line and the rows below it), which ``skip`` steps over too."""
    if kept.lines_dropped:
        if kept.answer_full:
            why = "to keep the answer within the answer budget"
        elif len(kept.lines) >= used:  # max_lines, not the character budget, was reached
            why = f"by max_lines {used}"
        else:
            why = f"by the {MAX_CHARS}-character budget of one answer"
        skip = len(kept.lines) + len(screen_lines("\n".join(after)))
        return (
            f"{kept.lines_dropped} older lines were left out {why} (newest kept): capture_pane "
            f"with history: true, skip: {skip} and max_lines: "
            f"{min(kept.lines_dropped, MAX_LINES)} returns them (add to skip any lines "
            "printed since)"
        )
    if kept.truncated:
        why = "the answer budget" if kept.answer_full else f"the {MAX_CHARS}-character budget"
        return f"the oldest kept line was cut to its last characters ({why})"
    return None


class CapturedPane(Result):
    text_body = "content"
    # the body's length; the line budget the call named (docs/answers.md)
    text_omits = frozenset({"line_count", "max_lines"})
    content: list[str] = Field(description="lines, oldest first; wrapped rows joined")
    line_count: int
    hidden_rows: int = Field(default=0, description=HIDDEN_FIELD)
    truncated: bool = False
    lines_dropped: int = Field(default=0, description="older lines left out by the budgets")
    cursor: Cursor
    max_lines: int = Field(default=Limits.DEFAULT_LINES, description="the line budget used")


@tool(SCREEN, title="Capture pane")
async def capture_pane(ctx: ToolContext, args: CaptureArgs) -> CapturedPane:
    """Return a pane's screen (or history too) as lines, newest kept, with the cursor."""
    screen = await read_screen(ctx, args.pane_id, args.history)
    fields = bounded(screen, args)
    return CapturedPane(line_count=len(fields["content"]), cursor=screen.cursor, **fields)


class Snapshot(Result):
    text_body = "content"
    text_omits = frozenset({"max_lines"})  # the line budget the call named
    pane: Pane
    content: list[str] = Field(description="lines, oldest first; wrapped rows joined")
    cursor: Cursor
    hidden_rows: int = Field(default=0, description=HIDDEN_FIELD)
    truncated: bool = False
    lines_dropped: int = Field(default=0, description="older lines left out by the budgets")
    max_lines: int = Field(default=Limits.DEFAULT_LINES, description="the line budget used")


@tool(SCREEN, title="Snapshot pane")
async def snapshot_pane(ctx: ToolContext, args: CaptureArgs) -> Snapshot:
    """Return a pane's metadata and its screen, read at one moment."""
    screen = await read_screen(ctx, args.pane_id, args.history)
    return Snapshot(pane=screen.pane, cursor=screen.cursor, **bounded(screen, args))


TOOLS = [capture_pane, snapshot_pane]

"""capture_since and wait_for_text: watch a pane without polling (docs/runs-and-waits.md)."""

from __future__ import annotations

import time

import anyio
from muxport import (
    Args,
    Capability,
    MaxLines,
    NotFound,
    PaneId,
    Result,
    ServerGone,
    ToolContext,
    tool,
)
from muxport.policy import Limits
from pydantic import Field

from muxport_inspect.common import HIDDEN_FIELD
from muxport_inspect.cursors import Signer, line_hash
from muxport_inspect.looking import advance
from muxport_inspect.patterns import Patterns
from muxport_inspect.screen import older_note
from muxport_inspect.waits import CURSOR_FIELD, Wait, WaitForText, WaitForTextArgs

META = Capability.READ.replace(output_classes=["terminal-content"])
# Looks at one busy pane are spaced at least this far apart (output arriving in a
# stream rings the doorbell far more often than a reader needs to capture).
MIN_LOOK_SPACING = 0.02


class CaptureSinceArgs(Args):
    pane_id: PaneId
    cursor: str | None = CURSOR_FIELD
    max_lines: MaxLines = None


class CaptureSince(Result):
    # a model continues with cursor "last"; new_lines is the body's length plus lines_dropped;
    # max_lines is the one it asked for
    text_body = "content"
    text_omits = frozenset({"cursor", "new_lines", "max_lines"})
    content: list[str] = Field(description="finished lines since the cursor, oldest first")
    new_lines: int = Field(description="finished lines since the cursor (before the budget)")
    cursor: str = Field(description="pass it to the next capture_since or wait_for_text")
    continuous: bool = Field(
        default=True,
        description="false: cleared or outrun since the last look",
    )
    hidden_rows: int = Field(default=0, description=HIDDEN_FIELD)
    truncated: bool = False
    lines_dropped: int = 0
    max_lines: int = Field(default=Limits.DEFAULT_LINES, description="the line budget used")


@tool(META, title="Capture new pane lines since a cursor")
async def capture_since(sign: Signer, ctx: ToolContext, args: CaptureSinceArgs) -> CaptureSince:
    """Return the finished lines a pane printed since the cursor.

    No cursor: a baseline. Cursor "last": since this server's newest answer for the pane.
    """
    budget = Limits.lines(args.max_lines)
    cursor = sign.resolve(args.cursor, args.pane_id)
    token = (sign, cursor) if cursor is not None else None
    current, result = await advance(ctx, args.pane_id, None, budget, token)
    kept = Limits.keep_newest(result.lines, budget)
    notes: list[str | None] = []
    if cursor is None:
        notes.append('baseline taken; cursor "last" returns what follows')
    elif not result.continuous:
        why = ("more lines were printed than the pane's history keeps (history-limit), so "
               "the oldest new ones are lost" if result.outran else "the pane was cleared")
        notes.append(
            f"{why}: content is the newest finished lines now in the pane, not a "
            "continuation of the last look"
        )
    notes.append(older_note(kept, budget, [current.cursor_line, *current.below]))
    if current.dead:
        notes.append("the pane's process has exited (respawn_pane restarts it)")
    answer = CaptureSince(
        content=kept.lines,
        new_lines=len(result.lines),
        cursor=sign.encode(result.state),
        continuous=result.continuous,
        hidden_rows=result.hidden,
        # lines lost off the top of a full history are a cut too (issue 30)
        truncated=kept.truncated or (result.outran and not result.continuous),
        lines_dropped=kept.lines_dropped,
        max_lines=budget,
        note="; ".join(filter(None, notes)) or None,
    )
    sign.remember(args.pane_id, answer.cursor)
    return answer


@tool(META, title="Wait for text in a pane")
async def wait_for_text(sign: Signer, ctx: ToolContext, args: WaitForTextArgs) -> WaitForText:
    """Wait for text in a pane's NEW output (or a stop pattern, or the pane's end).

    Text already shown: present_at_entry. Returns the new output.
    """
    answer = await _wait(sign, ctx, args)
    sign.remember(args.pane_id, answer.cursor)
    return answer


async def _wait(sign: Signer, ctx: ToolContext, args: WaitForTextArgs) -> WaitForText:
    patterns = await Patterns.compile(args.patterns, args.stop, args.regex)
    wait = Wait(ctx, args, patterns)
    # display-message alone prints for some other pane when the target is missing;
    # has-session fails for it, naming the pane.
    where = await ctx.tmux.read(
        ("has-session", "-t", args.pane_id),
        ("display-message", "-p", "-t", args.pane_id, "#{session_id} #{pane_pid}"),
    )
    session_id, pid = where.stdout.split()
    cursor = sign.resolve(args.cursor, args.pane_id)
    state = sign.decode(cursor, args.pane_id, int(pid)) if cursor else None
    label = " or ".join(repr(p) for p in (args.patterns or [])[:3]) or "new output"
    what = f"{label} in {args.pane_id}"
    async with (
        ctx.watch(args.pane_id, session_id) as activity,
        ctx.heartbeat(what, wait.timeout),
    ):
        try:
            current, result = await advance(ctx, args.pane_id, state, wait.budget)
            cursor = sign.encode(result.state)
            if state is None:
                wait.unfinished = line_hash(current.cursor_line)
                hit = await patterns.first(current.screen(), stop=False)
                if hit is not None:
                    return wait.finish("present_at_entry", hit, cursor)
                wait.cursor_line, wait.below = current.cursor_line, current.below
            else:
                wait.unfinished = state.unfinished
                hit = await wait.absorb(current, result)
                if hit is not None:
                    return wait.finish("stopped" if hit.stop else "matched", hit, cursor)
            state = result.state
            # Armed: output from now on rings the doorbell. Say so at once (clients that
            # print after this know the text will count as new).
            await ctx.wait_progress(what, wait.timeout, 0.0, "armed")
            last_look = 0.0  # the first wake after arming is never held back
            while True:
                if current.dead:
                    return wait.finish("pane_gone", None, cursor)
                await activity.rebind(ctx, current.session_id)
                remaining = wait.start + wait.timeout - time.monotonic()
                if remaining <= 0:
                    return wait.finish("timed_out", None, cursor)
                await activity.wait(min(remaining, activity.recheck_interval()))
                await _space_out(last_look)
                last_look = time.monotonic()
                current, result = await advance(ctx, args.pane_id, state, wait.budget)
                state, cursor = result.state, sign.encode(result.state)
                hit = await wait.absorb(current, result)
                if hit is not None:
                    return wait.finish("stopped" if hit.stop else "matched", hit, cursor)
        except NotFound:
            return wait.finish("pane_gone", None, cursor)
        except ServerGone:
            return wait.finish("server_gone", None, cursor)
    return wait.finish("timed_out", None, cursor)  # cut short: muxport is exiting


async def _space_out(last_look: float) -> None:
    delay = last_look + MIN_LOOK_SPACING - time.monotonic()
    if delay > 0:
        await anyio.sleep(delay)


TOOLS = [capture_since, wait_for_text]

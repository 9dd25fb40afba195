"""search_panes: find text on the visible screens of many panes, within a work ceiling."""

from __future__ import annotations

import functools
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from muxport import Args, InvalidArgument, Result, SessionId, ToolContext, tool
from muxport.formats import fmt, records
from muxport.policy import UserRegex
from pydantic import BaseModel, Field, field_validator

from muxport_inspect.common import HIDDEN_FIELD, SCREEN, scope, shown, utf8_len

MAX_PATTERN_BYTES = 4096
CEILING_PANES = 200
CEILING_LINES = 20_000
CEILING_BYTES = 1_000_000
CEILING_SECONDS = 5.0
MATCHES_CAP = 1000
PER_PANE_CAP = 100
LINE_CHARS = 1000  # a matched line is cut to this window around the match
CHUNK = 25  # panes captured per tmux invocation


class SearchArgs(Args):
    pattern: str = Field(
        min_length=1,
        max_length=MAX_PATTERN_BYTES,
        description="text (or a regex with regex: true), at most 4096 UTF-8 bytes",
    )
    regex: bool = Field(
        default=False, description="true: pattern is an RE2 regular expression (no backreferences)"
    )
    # The schema's bounds are the caps: what a client validating by the schema accepts,
    # the server accepts, and nothing is clamped in silence.
    max_matches: int = Field(default=200, ge=1, le=MATCHES_CAP, description="total returned")
    max_matches_per_pane: int = Field(default=5, ge=1, le=PER_PANE_CAP)
    session_id: SessionId | None = Field(
        default=None, description="search only this session's panes"
    )

    @field_validator("pattern")
    @classmethod
    def pattern_bytes(cls, value: str) -> str:
        if utf8_len(value) > MAX_PATTERN_BYTES:
            raise ValueError(
                f"pattern is {utf8_len(value)} bytes; shorten it to at most 4096 bytes"
            )
        return value


class Match(BaseModel):
    pane_id: str
    session_id: str
    window_id: str
    line_number: int = Field(
        description="1-based line of the pane's visible screen as capture_pane shows it"
    )
    line: str = Field(
        description=f"the matching line, cut to {LINE_CHARS} characters around the match"
    )


class SearchResult(Result):
    count: int
    panes_searched: int = Field(description="panes read to the end")
    matches: list[Match]
    work_limited: bool = Field(
        default=False, description="the work ceiling stopped the search before every pane was read"
    )
    truncated: bool = Field(default=False, description="more matches exist than were returned")
    hidden_rows: int = Field(default=0, description=HIDDEN_FIELD + ", not searched")


async def matcher(args: SearchArgs, budget: UserRegex.Budget) -> Callable[[str], int]:
    """A function giving the match start in a line, or -1 (in a matching thread)."""
    if not args.regex:
        return lambda line: line.find(args.pattern)
    try:
        compiled = await UserRegex.compile(args.pattern)
    except UserRegex.TooCostly as exc:
        raise UserRegex.TooCostly(f"pattern is {exc.message}", data=exc.data) from None
    except ValueError as exc:
        raise InvalidArgument(
            f"pattern is not a usable regular expression: {exc}; or pass regex: false "
            "to search for the text literally"
        ) from None

    return lambda line: compiled.search(line, budget)


def clip(line: str, start: int) -> str:
    if len(line) <= LINE_CHARS:
        return line
    begin = max(0, min(start - LINE_CHARS // 2, len(line) - LINE_CHARS))
    return line[begin : begin + LINE_CHARS]


async def captures(ctx: ToolContext, panes: list[str]) -> dict[str, list[str]]:
    """Visible screens of ``panes``, several per invocation, split on a random marker.

    The marker names its pane through ``#{pane_id}``, never by putting the id in the
    template: display-message runs its template through strftime first, which rewrites
    ``%5`` (docs/tmux-facts.md, "Format expansion")."""
    marker = f"muxport-search-{secrets.token_hex(8)}"
    commands: list[tuple[str, ...]] = []
    for pane in panes:
        commands.append(("display-message", "-p", "-t", pane, marker + " #{pane_id}"))
        commands.append(("capture-pane", "-p", "-J", "-t", pane))
    out = await ctx.tmux.run(*commands, check=False)
    if out.returncode != 0 and len(panes) > 1:
        # a pane vanished mid-search; read the rest one by one
        screens: dict[str, list[str]] = {}
        for pane in panes:
            screens.update(await captures(ctx, [pane]))
        return screens
    screens = {}
    for block in out.stdout.split(marker + " ")[1:]:
        pane, _, body = block.partition("\n")
        body = body[:-1] if body.endswith("\n") else body
        screens[pane] = body.split("\n") if body else []
    return screens


@dataclass
class Scan:
    """One search's progress through the panes, run chunk by chunk in a matching thread."""

    find: Callable[[str], int]
    total_cap: int
    pane_cap: int
    started: float = field(default_factory=time.monotonic)
    matches: list[Match] = field(default_factory=list)
    searched: int = 0
    unread: int = 0  # listed, but no screen came back (closed meanwhile): said in the note
    lines_read: int = 0
    bytes_read: int = 0
    limited: bool = False
    more: bool = False
    hidden: int = 0  # rows of muxport's runs left out of the screens searched

    def chunk(self, chunk: list[list[str]], screens: dict[str, list[str]]) -> None:
        for pane_id, session_id, window_id in chunk:
            if self.limited or time.monotonic() - self.started > CEILING_SECONDS:
                self.limited = True
                return
            rows = screens.get(pane_id)
            if rows is None:
                self.unread += 1
                continue
            lines, hidden = shown(rows)  # as capture_pane shows the screen
            self.hidden += sum(hidden)
            found = 0
            for number, line in enumerate(lines, 1):
                self.lines_read += 1
                self.bytes_read += utf8_len(line) + 1
                if self.lines_read > CEILING_LINES or self.bytes_read > CEILING_BYTES:
                    self.limited = True
                    return
                start = self.find(line)
                if start < 0:
                    continue
                if found >= self.pane_cap or len(self.matches) >= self.total_cap:
                    self.more = True
                    continue
                found += 1
                self.matches.append(
                    Match(
                        pane_id=pane_id,
                        session_id=session_id,
                        window_id=window_id,
                        line_number=number,
                        line=clip(line, start),
                    )
                )
            self.searched += 1


@tool(SCREEN, title="Search panes")
async def search_panes(ctx: ToolContext, args: SearchArgs) -> SearchResult:
    """Search the visible screens of all panes (or one session's) for text or a regex."""
    budget = UserRegex.Budget()
    find = await matcher(args, budget)
    listing = await ctx.tmux.run(
        (
            "list-panes",
            *scope(args.session_id),
            "-F",
            fmt(("pane_id", "session_id", "window_id")),
        ),
    )
    panes = records(listing.stdout)
    scan = Scan(find, args.max_matches, args.max_matches_per_pane)
    todo = panes[:CEILING_PANES]
    for offset in range(0, len(todo), CHUNK):
        chunk = todo[offset : offset + CHUNK]
        screens = await captures(ctx, [p[0] for p in chunk])
        try:
            await UserRegex.match_off_loop(budget, functools.partial(scan.chunk, chunk, screens))
        except UserRegex.TooCostly as exc:
            raise UserRegex.TooCostly(f"pattern is {exc.message}", data=exc.data) from None
        if scan.limited:
            break
    searched, matches, more = scan.searched, scan.matches, scan.more
    # past the pane ceiling: the first CEILING_PANES panes are searched, the rest are not
    limited = scan.limited or len(panes) > CEILING_PANES
    notes = []
    if limited:
        notes.append(
            f"the work ceiling ({CEILING_PANES} panes, {CEILING_LINES} lines, "
            f"{CEILING_BYTES} bytes, {CEILING_SECONDS:.0f} s) stopped the search after "
            f"{searched} of {len(panes)} panes; "
            "pass session_id to search fewer panes"
        )
    if scan.unread:
        notes.append(
            f"{scan.unread} of the {len(panes)} panes listed could not be read (closed "
            "during the search?); call list_panes to see what exists"
        )
    if more:
        room = [name for name, value, cap in (
            ("max_matches", args.max_matches, MATCHES_CAP),
            ("max_matches_per_pane", args.max_matches_per_pane, PER_PANE_CAP),
        ) if value < cap]
        advice = f"raise {' or '.join(room)}, or " if room else ""
        notes.append(f"more matches exist; {advice}narrow the pattern or pass session_id")
    if not panes:
        notes.append("no panes to search; call list_sessions to see what exists")
    return SearchResult(
        count=len(matches),
        panes_searched=searched,
        matches=matches,
        work_limited=limited,
        truncated=more,
        hidden_rows=scan.hidden,
        note="; ".join(notes) or None,
    )


TOOLS = [search_panes]

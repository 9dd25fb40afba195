"""The patterns of wait_for_text: limits, plain or regex matching, the first hit in some lines.

Compiling and matching run off the event loop (``muxport.policy``): a costly pattern ends the
wait with ``pattern_too_costly`` and never holds another call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from muxport import InvalidArgument
from muxport.policy import UserRegex
from pydantic import BeforeValidator, Field

MAX_PATTERNS = 32
MAX_PATTERN_BYTES = 4096
MAX_TOTAL_BYTES = 16_384


def _one_or_many(value: Any) -> Any:
    """A bare string is one pattern."""
    return [value] if isinstance(value, str) else value


def _bounded_bytes(value: str) -> str:
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_PATTERN_BYTES:
        raise ValueError(f"a pattern is {size} bytes; each may be at most {MAX_PATTERN_BYTES}")
    return value


Pattern = Annotated[
    str,
    Field(min_length=1, max_length=MAX_PATTERN_BYTES),
    BeforeValidator(lambda v: _bounded_bytes(v) if isinstance(v, str) else v),
]
# The length limit sits on the list itself: on ``list | None`` pydantic would apply it to
# an explicit null too and raise a TypeError instead of accepting it.
PatternList = Annotated[
    Annotated[list[Pattern], Field(max_length=MAX_PATTERNS)] | None,
    BeforeValidator(_one_or_many),
]


@dataclass(frozen=True)
class Hit:
    pattern: str | None
    line: str
    stop: bool = False


@dataclass(frozen=True)
class Patterns:
    wanted: tuple[tuple[str, UserRegex | None], ...]
    stops: tuple[tuple[str, UserRegex | None], ...]

    @property
    def any(self) -> bool:
        """Whether there are patterns to wait for (none: any new output)."""
        return bool(self.wanted)

    @classmethod
    async def compile(
        cls, wanted: Sequence[str] | None, stops: Sequence[str] | None, regex: bool
    ) -> Patterns:
        """Check the combined size and, for regex, that each compiles (a tool error if not)."""
        wanted, stops = list(wanted or []), list(stops or [])
        total = sum(len(p.encode("utf-8", "surrogatepass")) for p in wanted + stops)
        if total > MAX_TOTAL_BYTES:
            raise InvalidArgument(
                f"patterns and stop patterns add up to {total} bytes; the limit is "
                f"{MAX_TOTAL_BYTES}: wait for fewer or shorter patterns"
            )

        async def build(items: list[str], what: str) -> tuple[tuple[str, UserRegex | None], ...]:
            built = []
            for index, text in enumerate(items):
                compiled = None
                if regex:
                    try:
                        compiled = await UserRegex.compile(text)
                    except UserRegex.TooCostly as exc:
                        raise UserRegex.TooCostly(
                            f"{what}[{index}] {text[:80]!r} is {exc.message}", data=exc.data
                        ) from None
                    except ValueError as exc:
                        raise InvalidArgument(
                            f"{what}[{index}] {text[:80]!r} is not a usable regular expression: "
                            f"{exc}; or pass regex: false to match it as plain text"
                        ) from None
                built.append((text, compiled))
            return tuple(built)

        return cls(await build(wanted, "patterns"), await build(stops, "stop"))

    async def first(self, lines: Sequence[str], stop: bool = True) -> Hit | None:
        """The first line holding a pattern (a stop pattern wins within one line), found in a
        worker thread within one ``MatchBudget``."""
        if not lines or not (self.wanted or (stop and self.stops)):
            return None
        budget = UserRegex.Budget()
        stops = self.stops if stop else ()

        def scan() -> Hit | None:
            for line in lines:
                for text, compiled in stops:
                    if _found(text, compiled, line, budget):
                        return Hit(text, line, stop=True)
                for text, compiled in self.wanted:
                    if _found(text, compiled, line, budget):
                        return Hit(text, line)
            return None

        try:
            return await UserRegex.match_off_loop(budget, scan)
        except UserRegex.TooCostly as exc:
            raise UserRegex.TooCostly(
                f"waiting for these patterns is {exc.message}", data=exc.data
            ) from None


def _found(text: str, compiled: UserRegex | None, line: str, budget: UserRegex.Budget) -> bool:
    return compiled.search(line, budget) >= 0 if compiled is not None else text in line

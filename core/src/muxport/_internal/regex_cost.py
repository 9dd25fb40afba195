r"""What a client's pattern would cost RE2 to compile, read from its text before RE2 sees it
(docs/reliability.md, "Client regexes").

RE2 compiles while holding the GIL (its Python binding does not release it), so a compile
holds every thread of muxport, the event loop included. Two costs are not bounded by RE2's
memory limit, because they come before or after the part it checks:

- counted repeats are expanded before compiling: ``x{n,m}`` becomes m copies of x;
- ``x{n,m}`` nests m-n optional copies (``x(x(x)?)?``), and RE2's compile time grows with the
  square of that nesting (``a{0,1000}``: about 5 ms; adjacent ``a?a?a?`` are merged into one
  such nest).

Reading a Unicode class (``\pL``, ``\p{Greek}``) costs RE2 up to 0.6 ms each time the text
names one, whatever the memory limit (``\pL`` written out 1,300 times: 240 ms).

This scan gives an upper bound of each in one pass over the text. It never validates: what
it misreads is refused by RE2 afterwards, and every misreading counts more, never less.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CAP = 10**9  # values beyond any limit stop growing (nested repeats multiply)
_SPECIAL = re.compile(r"[\\\[(){|*+?]")  # what ends a run of plain characters


@dataclass(frozen=True)
class Cost:
    size: int  # pieces after counted repeats are expanded (upper bound)
    optional: int  # optional copies nested by x?, x{n,m} (m-n each), times their copies
    unicode: int = 0  # Unicode classes the text names (\p, \P)


@dataclass
class _Frame:
    done: list[Cost] = field(default_factory=list)  # finished branches of an alternation
    size: int = 0  # the current branch, without its last piece
    optional: int = 0
    last: Cost | None = None  # the piece a repeat operator applies to

    def push(self, piece: Cost | None) -> None:
        if self.last is not None:
            self.size = min(CAP, self.size + self.last.size)
            self.optional = min(CAP, self.optional + self.last.optional)
        self.last = piece

    def total(self) -> Cost:
        self.push(None)
        branches = [*self.done, Cost(self.size, self.optional)]
        return Cost(
            min(CAP, sum(b.size for b in branches) + len(branches) - 1),
            min(CAP, sum(b.optional for b in branches)),
        )


ATOM = Cost(1, 0)


def _repeat(piece: Cost, low: int, high: int | None) -> Cost:
    """``piece{low,high}`` (None: unbounded)."""
    copies = low + 1 if high is None else max(high, 1)
    extra = 0 if high is None else max(0, high - low)
    return Cost(
        min(CAP, piece.size * copies + extra + 1), min(CAP, piece.optional * copies + extra)
    )


def _counted(text: str, at: int) -> tuple[int, int | None, int] | None:
    """``{n}``, ``{n,}`` or ``{n,m}`` at ``text[at]``: (n, m, index after it)."""
    end = text.find("}", at)
    if end < 0:
        return None
    low, comma, high = text[at + 1 : end].partition(",")
    if not low.isdigit() or (high and not high.isdigit()) or len(low) > 6 or len(high) > 6:
        return None
    if not comma:
        return int(low), int(low), end + 1
    return int(low), (int(high) if high else None), end + 1


def _class_end(text: str, at: int) -> tuple[int, int]:
    """The index after the character class opening at ``text[at]``, and the Unicode classes
    it names."""
    unicode = 0
    i = at + 1
    if text.startswith("^", i):
        i += 1
    if text.startswith("]", i):
        i += 1
    while i < len(text):
        if text.startswith("[:", i):
            close = text.find(":]", i + 2)
            i = close + 2 if close >= 0 else i + 1
        elif text[i] == "\\":
            unicode += text[i + 1 : i + 2] in ("p", "P")
            i = _escape_end(text, i)
        elif text[i] == "]":
            return i + 1, unicode
        else:
            i += 1
    return i, unicode


def _escape_end(text: str, at: int) -> int:
    """The index after the escape at ``text[at]`` (a backslash)."""
    kind = text[at + 1 : at + 2]
    if kind in ("p", "P", "x") and text.startswith("{", at + 2):
        close = text.find("}", at + 2)
        return close + 1 if close >= 0 else len(text)
    if kind in ("p", "P"):
        return at + 3
    if kind == "x":
        return at + 4
    return at + 2


def _group_start(text: str, at: int) -> tuple[int, bool]:
    """After ``(`` at ``text[at]``: where the group's body starts, and whether it is a group
    (``(?i)`` only sets flags)."""
    if not text.startswith("(?", at):
        return at + 1, True
    i = at + 2
    if text.startswith(("P<", "<"), i) and not text.startswith(("<=", "<!"), i):
        close = text.find(">", i)
        return (close + 1 if close >= 0 else len(text)), True
    while i < len(text) and (text[i].isalpha() or text[i] == "-"):
        i += 1
    if text.startswith(")", i):
        return i + 1, False
    return (i + 1 if text.startswith(":", i) else i), True


def estimate(text: str) -> Cost:
    """An upper bound of what ``text`` expands to in RE2 (``Cost``)."""
    stack = [_Frame()]
    i = unicode = 0
    while i < len(text):
        char = text[i]
        top = stack[-1]
        if char == "\\" and text.startswith("\\Q", i):
            close = text.find("\\E", i + 2)
            close = len(text) if close < 0 else close
            for _ in range(close - (i + 2)):
                top.push(ATOM)
            i = close + 2
        elif char == "\\":
            top.push(ATOM)
            unicode += text[i + 1 : i + 2] in ("p", "P")
            i = _escape_end(text, i)
        elif char == "[":
            top.push(ATOM)
            i, named = _class_end(text, i)
            unicode += named
        elif char == "(":
            i, is_group = _group_start(text, i)
            if is_group:
                stack.append(_Frame())
            else:
                top.push(None)
        elif char == ")":
            if len(stack) > 1:
                stack.pop()
                stack[-1].push(top.total())
            i += 1
        elif char == "|":
            top.push(None)
            top.done.append(Cost(top.size, top.optional))
            top.size = top.optional = 0
            i += 1
        elif char in "*+?" and top.last is not None:
            if char == "?":
                top.last = _repeat(top.last, 0, 1)
            else:
                top.last = Cost(min(CAP, top.last.size + 1), top.last.optional)
            i += 2 if text.startswith("?", i + 1) else 1  # a lazy repeat costs the same
        elif char == "{" and top.last is not None and (counted := _counted(text, i)):
            low, high, i = counted
            top.last = _repeat(top.last, low, high)
            i += 1 if text.startswith("?", i) else 0
        else:  # a run of plain characters: a repeat after it applies to its last one
            found = _SPECIAL.search(text, i + 1)
            end = found.start() if found else len(text)
            if end - i > 1:
                top.push(Cost(end - i - 1, 0))
            top.push(ATOM)
            i = end
    while len(stack) > 1:  # unbalanced: RE2 refuses it, the bound still holds
        inner = stack.pop().total()
        stack[-1].push(inner)
    total = stack[0].total()
    return Cost(total.size, total.optional, unicode)

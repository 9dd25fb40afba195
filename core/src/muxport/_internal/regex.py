"""Regular expressions from clients, on google-re2 (docs/reliability.md, "Client regexes").

RE2 runs in time linear in the subject (no backtracking) and refuses what it cannot do that
way (backreferences, lookaround) with its own message. Linear is not cheap: the cost grows
with the compiled program too (an 8 KiB line against a 3 KB alternation of counted repeats
took 25 s), and RE2's compile holds the GIL. So a client's pattern is bounded before it runs:

- its text is read first (``regex_cost``): counted repeats may expand to at most
  ``MAX_EXPANDED`` pieces and nest at most ``MAX_OPTIONAL`` optional copies, and the text
  may name ``MAX_UNICODE_CLASSES`` Unicode classes;
- it is compiled with memory for ``MAX_PROGRAM`` instructions at most, then once more with
  RE2's usual ``MATCH_MEMORY`` for matching (the DFA's cache);
- compiling and matching run in worker threads (``regex_work``), and matching stops once a
  call has used ``MAX_MATCH_SECONDS`` of CPU time.

What breaks a bound is refused as ``pattern_too_costly``, naming the size and the limit. A
regex only ever sees the last ``MAX_SUBJECT`` characters of a line.
"""

from __future__ import annotations

import time
from typing import Any, NoReturn

import re2

from muxport._internal.errors import InvalidArgument
from muxport._internal.regex_cost import estimate

MAX_SUBJECT = 8192  # characters of a line a client's regex is run on (its end is kept)
MAX_PROGRAM = 5000  # RE2 instructions a client's pattern may compile to
MAX_EXPANDED = 20_000  # pieces its counted repeats may expand to
MAX_OPTIONAL = 1000  # optional copies it may nest (x?, x{n,m}: RE2's largest count)
MAX_UNICODE_CLASSES = 8  # Unicode classes (\pL, \p{Greek}) its text may name
MAX_MATCH_SECONDS = 1.0  # CPU time one call's matching may use (one look, for a wait)
# RE2's memory budget: 2/3 for the forward program at 8 bytes an instruction (plus the
# program's own header), the rest for the reverse one; measured: 12 bytes an instruction.
# Room for twice MAX_PROGRAM: RE2 counts its instructions before it optimizes them away.
CHECK_MEMORY = 12 * 2 * MAX_PROGRAM + 1024
MATCH_MEMORY = 8 << 20  # RE2's default: the DFA's cache lives in it, and is built lazily

FIX = "use a shorter pattern with fewer counted repeats ({n,m}), or several simpler ones"


class PatternTooCostly(InvalidArgument):
    """A client's pattern that would cost more than muxport lets one pattern cost."""

    code = "pattern_too_costly"


def too_costly(what: str, measured: int | float, limit: int | float, fix: str = FIX) -> NoReturn:
    raise PatternTooCostly(
        f"too costly to run: {what}; {fix}",
        data={"measured": measured, "limit": limit},
    )


class Compiled:
    """A client's pattern compiled within the limits (``compile_user_regex``)."""

    __slots__ = ("_regexp", "pattern", "program_size")

    def __init__(self, pattern: str, regexp: Any, program_size: int) -> None:
        self.pattern = pattern
        self.program_size = program_size  # RE2 instructions
        self._regexp = regexp

    def __repr__(self) -> str:
        return f"Compiled({self.pattern!r}, program_size={self.program_size})"


def _options(memory: int) -> Any:
    options = re2.Options()
    options.log_errors = False  # the error goes to the client, not to stderr as well
    options.max_mem = memory
    return options


def _re2(text: str, memory: int) -> Any:
    # Not re2.compile: its cache would keep up to 128 patterns, each with a DFA cache of up
    # to MATCH_MEMORY, alive after the calls that sent them.
    return re2._Regexp(text, _options(memory))


def _occurrences(text: str, part: str) -> list[int]:
    found, at = [], text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def _hint(reason: str, text: str) -> str:
    """What RE2's words mean, for the constructs clients bring from other engines."""
    construct = reason.rpartition(": ")[2]
    backreference = " (a backreference; backreferences are not supported)"
    if reason.startswith("invalid escape sequence"):
        if construct[1:2].isdigit() or construct == "\\k":
            return backreference
        return ""
    if not reason.startswith("invalid perl operator"):
        return ""
    if construct in ("(?=", "(?!", "(?<=", "(?<!"):
        return " (lookahead and lookbehind are not supported)"
    if construct == "(?P":  # (?P<name> is a group; the first (?P that is not one is refused
        after = [text[at + 3 : at + 4] for at in _occurrences(text, construct)]
        kind = next((a for a in after if a != "<"), "")
        if kind == "=":
            return " ((?P=name) is a backreference; backreferences are not supported)"
        if kind == ">":
            return " ((?P>name) is a recursion; recursion is not supported)"
        return ""
    if construct == "(?#":
        return " (comments are not supported)"
    if construct.startswith("(?") and construct[2:].isalpha():
        return " (RE2's flags are i, m, s and U)"
    return ""


def compile_pattern(text: str) -> Compiled:
    """Compile a client's pattern in this thread (``regex_work.compile_user_regex`` runs it in
    a worker): ``ValueError`` says why RE2 refuses it, ``PatternTooCostly`` which bound it
    breaks."""
    cost = estimate(text)
    if cost.size > MAX_EXPANDED:
        too_costly(
            f"its counted repeats expand to about {cost.size} pieces (x{{n,m}} repeats x m "
            f"times), more than {MAX_EXPANDED}",
            cost.size,
            MAX_EXPANDED,
        )
    if cost.optional > MAX_OPTIONAL:
        too_costly(
            f"it nests about {cost.optional} optional copies (x? adds 1, x{{n,m}} adds m-n), "
            f"more than {MAX_OPTIONAL}: RE2's compile time grows with their square",
            cost.optional,
            MAX_OPTIONAL,
            "use x* or x+ instead of long optional repeats, or fewer of them",
        )
    if cost.unicode > MAX_UNICODE_CLASSES:
        too_costly(
            f"it names {cost.unicode} Unicode classes (\\p...), more than "
            f"{MAX_UNICODE_CLASSES}: RE2 reads each one's table",
            cost.unicode,
            MAX_UNICODE_CLASSES,
            "name each class once, e.g. [\\pL\\pN]+ instead of \\pL\\pL\\pL",
        )
    try:
        checked = _re2(text, CHECK_MEMORY)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "it does not compile"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        if "pattern too large" in str(reason):
            too_costly(
                f"it compiles to more than {MAX_PROGRAM} RE2 instructions", MAX_PROGRAM + 1,
                MAX_PROGRAM,
            )
        raise ValueError(f"RE2 refuses it: {reason}{_hint(str(reason), text)}") from None
    size = int(checked.programsize)
    if size > MAX_PROGRAM:
        too_costly(f"it compiles to {size} RE2 instructions, more than {MAX_PROGRAM}", size,
                   MAX_PROGRAM)
    del checked
    return Compiled(text, _re2(text, MATCH_MEMORY), size)


class MatchBudget:
    """The CPU time one call's matching may use (``MAX_MATCH_SECONDS``), counted in the
    thread that matches (``regex_work.match_off_loop`` starts and ends each pass)."""

    def __init__(self, seconds: float = MAX_MATCH_SECONDS) -> None:
        self.seconds = seconds
        self.spent = 0.0
        self.lines = 0  # searches so far
        self._started: float | None = None

    def begin(self) -> None:
        self._started = time.thread_time()

    def end(self) -> None:
        if self._started is not None:
            self.spent += time.thread_time() - self._started
            self._started = None

    def check(self) -> None:
        if self._started is None:
            raise RuntimeError("search with a budget runs inside regex_work.match_off_loop")
        self.lines += 1
        used = self.spent + time.thread_time() - self._started
        if used > self.seconds:
            too_costly(
                f"matching used {used:.2f} s of CPU time ({self.lines} line searches), more "
                f"than the {self.seconds:g} s one call may use",
                round(used, 3),
                self.seconds,
                "use a simpler pattern or fewer patterns, or read fewer lines",
            )


def search(compiled: Compiled, line: str, budget: MatchBudget) -> int:
    """Where ``compiled`` first matches ``line`` (-1: nowhere), looking at its last
    ``MAX_SUBJECT`` characters only; inside ``regex_work.match_off_loop`` (a worker thread),
    raising ``PatternTooCostly`` once the call's matching has used its CPU time."""
    offset = max(0, len(line) - MAX_SUBJECT)
    found = compiled._regexp.search(line, offset)
    budget.check()
    return -1 if found is None else int(found.start())

"""Regular expressions from clients, on google-re2 (docs/reliability.md: client regexes).

Matching runs on the event loop, so it must stay cheap whatever the pattern: RE2 runs in
time linear in the subject (no backtracking, so no pattern can blow up), refuses what it
cannot do that way (backreferences, lookaround) with its own message, and caps its memory
per pattern. A regex only ever sees the last ``MAX_SUBJECT`` characters of a line, so one
search costs at most a few milliseconds.
"""

from __future__ import annotations

from typing import Protocol

import re2

MAX_SUBJECT = 8192  # characters of a line a client's regex is run on (its end is kept)
MAX_MEMORY = 8 << 20  # bytes RE2 may use for one compiled pattern (its default, made explicit)


class Match(Protocol):
    def start(self) -> int: ...


class Compiled(Protocol):
    """The part of a compiled RE2 pattern muxport uses."""

    @property
    def pattern(self) -> str: ...

    def search(self, text: str, pos: int = ...) -> Match | None: ...


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the error goes to the client, not to stderr as well
    options.max_mem = MAX_MEMORY
    return options


def compile_user_regex(text: str) -> Compiled:
    """Compile a client's pattern; ``ValueError`` says why it is refused (RE2's words)."""
    try:
        compiled: Compiled = re2.compile(text, options=_options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "it does not compile"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        hint = ""
        if "escape sequence: \\" in str(reason) and any(f"\\{d}" in text for d in "123456789"):
            hint = " (backreferences are not supported)"
        elif "perl operator: (?" in str(reason):
            hint = " (lookahead and lookbehind are not supported)"
        raise ValueError(f"RE2 refuses it: {reason}{hint}") from None
    return compiled


def search(compiled: Compiled, line: str) -> int:
    """Where ``compiled`` first matches ``line`` (-1: nowhere), looking at its last
    ``MAX_SUBJECT`` characters only, so that one search stays within milliseconds."""
    offset = max(0, len(line) - MAX_SUBJECT)
    found = compiled.search(line, offset)
    return -1 if found is None else found.start()

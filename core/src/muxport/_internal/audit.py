"""The audit log: ``LIBTMUX_AUDIT=stderr|PATH`` writes one JSON line per tool call.

Targets (``*_id`` arguments holding exact tmux ids) are written as they are; every other value is
written as its length and a SHA-256 prefix, never in clear. A new file is
created with mode 0600.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import IO, Any

from muxport._internal.errors import StartupError

# Who called, over HTTP: the id of the caller's bearer token (set by http_app.py), never
# the token; over stdio there is one caller and it is unset (docs/http.md, "Audit").
CALLER: ContextVar[str | None] = ContextVar("muxport_caller", default=None)


def _digest(value: Any) -> dict[str, Any]:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return {"length": len(text), "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}


# Only exact tmux ids are written in clear: a ``*_id`` argument can hold anything a
# client sends (a pasted secret included), and the log must never show it.
_TMUX_ID = re.compile(r"[%@$][0-9]{1,9}")


def _target(value: Any) -> Any:
    return value if isinstance(value, str) and _TMUX_ID.fullmatch(value) else _digest(value)


class Entry:
    """One call being recorded; ``finish`` sets its outcome."""

    def __init__(self, tool: str, arguments: dict[str, Any] | None) -> None:
        args = arguments or {}
        self.data: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "tool": tool,
            "target": {k: _target(v) for k, v in args.items() if k.endswith("_id")},
            "payload": {k: _digest(v) for k, v in args.items() if not k.endswith("_id")},
            "outcome": "cancelled",
            "error_code": None,
        }
        caller = CALLER.get()
        if caller is not None:
            self.data["token_id"] = caller
        self.started = time.monotonic()

    def finish(self, is_error: bool | None, error_code: Any) -> None:
        self.data["outcome"] = "error" if is_error else "ok"
        self.data["error_code"] = error_code


class Audit:
    """Writes entries to stderr or a private file; does nothing when unset."""

    def __init__(self, stream: IO[str] | None, owned: bool) -> None:
        self.stream = stream
        self.owned = owned

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Audit:
        """``LIBTMUX_AUDIT``: empty (no log), ``stderr``, or a file opened for appending (a
        file that cannot be opened stops startup, naming the fix)."""
        where = (os.environ if env is None else env).get("LIBTMUX_AUDIT", "")
        if not where:
            return cls(None, False)
        if where == "stderr":
            return cls(sys.stderr, False)
        try:
            fd = os.open(where, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StartupError(
                f"LIBTMUX_AUDIT={where!r} cannot be opened ({exc.strerror}); "
                "name a writable file, or 'stderr'"
            ) from exc
        return cls(os.fdopen(fd, "a", encoding="utf-8"), True)

    @contextmanager
    def record(self, tool: str, arguments: dict[str, Any] | None) -> Iterator[Entry]:
        entry = Entry(tool, arguments)
        try:
            yield entry
        finally:
            if self.stream is not None:
                entry.data["seconds"] = round(time.monotonic() - entry.started, 4)
                self.stream.write(json.dumps(entry.data) + "\n")
                self.stream.flush()

    def close(self) -> None:
        if self.owned and self.stream is not None:
            self.stream.close()
            self.stream = None

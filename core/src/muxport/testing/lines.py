"""A server's stdout read one JSON-RPC message a line, within a deadline: the one such
reader of the test kit. Every read ends by its deadline (``TimeoutError``) or at end of
stream (``EOFError``), so a server that stalls fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import select
import time
from collections.abc import Sequence
from typing import IO, Any

CHUNK = 1 << 20


class JsonLines:
    """The lines of ``stream`` (a subprocess's stdout, or its descriptor), in order.

    ``raw`` keeps every line read (without its newline), for checks on the bytes a client
    received."""

    def __init__(self, stream: IO[bytes] | int) -> None:
        self.fd = stream if isinstance(stream, int) else stream.fileno()
        self.raw: list[bytes] = []
        self._buffer = b""

    def line(self, timeout: float = 10.0) -> bytes:
        """The next line, without its newline."""
        return self._line(time.monotonic() + timeout, timeout)

    def message(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message, notifications included."""
        return dict(json.loads(self.line(timeout)))

    def answer(self, ident: object, timeout: float = 10.0) -> dict[str, Any]:
        """The answer to request ``ident``; the messages before it are skipped."""
        return self.answers([ident], timeout)[0]

    def answers(self, ids: Sequence[object], timeout: float = 10.0) -> list[dict[str, Any]]:
        """The answers to ``ids``, in the order of ``ids`` whatever order they came in;
        other messages are skipped."""
        deadline, found = time.monotonic() + timeout, dict[object, dict[str, Any]]()
        while len(found) < len(ids):
            message = json.loads(self._line(deadline, timeout))
            if message.get("id") in ids:
                found[message["id"]] = dict(message)
        return [found[ident] for ident in ids]

    def _line(self, deadline: float, timeout: float) -> bytes:
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError(f"no complete line within {timeout} s")
            chunk = os.read(self.fd, CHUNK)
            if not chunk:
                raise EOFError("the stream closed")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        self.raw.append(line)
        return line


def text_block(text: str, body: str | None = None) -> dict[str, Any]:
    """An answer's text block read back (docs/answers.md, "The text block"): the fields of
    its first line, and under ``body`` the lines after it (none: an empty list)."""
    head, newline, rest = text.partition("\n")
    data: dict[str, Any] = json.loads(head)
    if body is not None and body not in data:  # in the JSON: a line held a newline
        data[body] = rest.split("\n") if newline else []
    return data

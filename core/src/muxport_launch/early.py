"""Answering ``initialize`` and ``server/discover`` while the server loads
(docs/architecture.md, "Startup order").

Loading the SDK and the toolsets and connecting to tmux takes most of a second (ten under
heavy load), and clients do not wait that long: Codex sends its first model request before
``initialize`` is answered, and Claude Code gives up on ``server/discover`` after about
2.7 s. Neither answer depends on anything loading decides: the capabilities, the server's
name and version and the instructions are fixed. So a thread started first answers a
well-formed first line of either kind at once; anything else it leaves to the SDK.
An ``initialize`` still goes to the SDK, which then holds the session's state as always;
its own answer to that request is dropped (``stdio.py``). A ``server/discover`` holds no
state and does not go to the SDK at all (``frames.py``: it does not decide the era).

This module imports only the standard library: it runs before anything heavy is loaded.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading

from muxport_launch.instructions import INSTRUCTIONS

VERSION = "0.1.0"
# The SDK's handshake versions and its answer to any other (tests/test_launcher_early.py
# checks both against the installed SDK, and the whole answer against the SDK's own).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST = "2025-11-25"
CAPABILITIES = {
    "logging": {},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
# The stateless era (2026-07-28): its versions and the envelope every request carries.
MODERN_VERSIONS = ("2026-07-28",)
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
DISCOVER = "server/discover"
FIRST_LINE = 1 << 16  # bytes read for the first line at most; an initialize line is small


def answer_to(line: bytes) -> tuple[object, bytes, str] | None:
    """The id, answer line and method for a well-formed ``initialize`` or
    ``server/discover`` line; None for anything else, which the SDK answers as always."""
    try:
        message = json.loads(line)
        json.dumps(message, ensure_ascii=False).encode()  # refuses lone surrogates
    except (ValueError, UnicodeError, RecursionError):
        return None
    if "\\u0000" in json.dumps(message):  # a NUL anywhere: the frame checks answer it
        return None
    found = answer(message)
    return None if found is None else (*found, message["method"])


def answer(message: object) -> tuple[object, bytes] | None:
    """The id and answer line for a decoded ``initialize`` or ``server/discover`` request
    the SDK would accept; None for anything else."""
    if not (isinstance(message, dict) and message.get("jsonrpc") == "2.0"):
        return None
    ident, params = message.get("id"), message.get("params")
    plain_id = isinstance(ident, str) or (type(ident) is int and abs(ident) < 10**18)
    if not plain_id or not isinstance(params, dict):
        return None
    method = message.get("method")
    result = (initialize_result(params) if method == "initialize"
              else discover_result(params) if method == DISCOVER else None)
    if result is None:
        return None
    body = {"jsonrpc": "2.0", "id": ident, "result": result}
    return ident, json.dumps(body, separators=(",", ":")).encode() + b"\n"


def initialize_result(params: dict[str, object]) -> dict[str, object] | None:
    client = params.get("clientInfo")
    version = params.get("protocolVersion")
    if not (isinstance(version, str) and isinstance(params.get("capabilities"), dict)
            and is_implementation(client)):
        return None
    return {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": version if version in HANDSHAKE_VERSIONS else LATEST,
        "serverInfo": {"name": "muxport", "version": VERSION},
    }


def discover_result(params: dict[str, object]) -> dict[str, object] | None:
    """The SDK's ``DiscoverResult`` for a request in a supported 2026 envelope (any other
    envelope is the SDK's to refuse, naming what is missing or supported)."""
    meta = params.get("_meta")
    if not (isinstance(meta, dict) and meta.get(VERSION_KEY) in MODERN_VERSIONS
            and isinstance(meta.get(CLIENT_CAPABILITIES_KEY), dict)
            and (CLIENT_INFO_KEY not in meta or is_implementation(meta[CLIENT_INFO_KEY]))):
        return None
    return {
        "cacheScope": "private",
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "supportedVersions": list(MODERN_VERSIONS),
        "ttlMs": 0,
        "_meta": {SERVER_INFO_KEY: {"name": "muxport", "version": VERSION}},
    }


def is_implementation(client: object) -> bool:
    return (isinstance(client, dict) and isinstance(client.get("name"), str)
            and isinstance(client.get("version"), str))


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (os.write may take part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class EarlyInitialize:
    """Owns the wire's file descriptors from the first moment, reads the first line in a
    thread and answers it when it is ``initialize`` or ``server/discover``. ``stdio.py``
    takes over once ``done``: ``read`` holds every byte this read (the first line and
    whatever came with it)."""

    def __init__(self) -> None:
        # Private copies of fds 0 and 1; the standard fds then point at /dev/null and
        # stderr, so that nothing tmux or a library prints can reach the wire.
        self.wire_in, self.wire_out = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(2, 1)
        os.close(null)
        self.read = bytearray()
        self.eof = False
        self.answered: object = None  # the id of the request answered here
        self.answered_method = ""  # and its method
        self.done = threading.Event()
        threading.Thread(target=self._first_line, name="muxport-early", daemon=True).start()

    def _first_line(self) -> None:
        try:
            while b"\n" not in self.read and len(self.read) < FIRST_LINE:
                chunk = os.read(self.wire_in, FIRST_LINE)
                if not chunk:
                    self.eof = True
                    break
                self.read += chunk
            line, newline, _ = bytes(self.read).partition(b"\n")
            found = answer_to(line) if newline else None
            if found is not None:
                write_all(self.wire_out, found[1])
                self.answered, self.answered_method = found[0], found[2]
        except OSError:  # the wire is gone: the stdio loop meets the same and ends
            pass
        finally:
            self.done.set()

    def startup_failed(self, message: str) -> None:
        """Tell a client that got the initialize answer why nothing follows (it also went
        to stderr): a log message, the way the startup line goes to a client."""
        if self.answered is None:
            return
        params: dict[str, object] = {"level": "error", "logger": "muxport", "data": message}
        line = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
        with contextlib.suppress(OSError):
            write_all(self.wire_out, json.dumps(line).encode() + b"\n")

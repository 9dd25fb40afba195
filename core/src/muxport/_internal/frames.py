"""Request lines off the wire, checked as JSON-RPC 2.0 says before the SDK sees them: the
SDK drops what it cannot parse without an answer, here every frame gets one
(docs/reliability.md, "JSON-RPC 2.0 as written"). A line longer than the limit is
dropped while it streams in (its first bytes are kept to find its id).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from muxport_launch import early
from pydantic import ValidationError

from muxport._internal.arguments import bad_string

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
# methods that need the session: refused, naming the handshake, before initialize
GATED = ("tools/", "resources/", "prompts/", "completion/", "logging/")
HEAD = 4096  # bytes of an over-long line kept to find its id
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_TOOL_CALL = re.compile(rb'"method"\s*:\s*"tools/call"')
_TOOL_NAME = re.compile(rb'"name"\s*:\s*"([A-Za-z0-9_.-]{1,128})"')


@dataclass(frozen=True)
class Verdict:
    """What to do with one frame: write ``reply``, release an id, and/or pass ``message``."""

    reply: bytes | None = None
    message: types.JSONRPCMessage | None = None
    release: object = None


def error(ident: object, code: int, message: str) -> bytes:
    body = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
    return json.dumps(body).encode() + b"\n"


def invalid(ident: object, why: str) -> Verdict:
    return Verdict(reply=error(ident, INVALID_REQUEST, f"Invalid Request: {why}"))


def tool_refusal(ident: object, text: str) -> bytes:
    meta = {"error_code": "invalid_argument", "retryable": False, "delivery": "not_sent"}
    result = {"content": [{"type": "text", "text": text}], "isError": True, "_meta": meta}
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode() + b"\n"


def valid_id(ident: object) -> bool:
    return isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool))


class Frames:
    """Splits the byte stream into lines and judges each one."""

    def __init__(
        self, max_bytes: int, is_quick: Callable[[str], bool], in_flight: dict[object, bool]
    ) -> None:
        self.max_bytes = max_bytes
        self.is_quick = is_quick
        self.in_flight = in_flight
        self.buffer = bytearray()
        self.dropping: bytes | None = None  # the head of the over-long line being dropped
        self.dropped = 0
        self.opened = False  # initialize (or notifications/initialized) was read
        self.initialize_key: object = None  # the key of the initialize request's id
        self.settled = False  # a request reached the SDK: it decided the era on it
        self.answered_early: object = None  # the key of a discover the launcher answered

    @staticmethod
    def key(ident: object) -> object:
        return (type(ident).__name__, ident)

    def feed(self, chunk: bytes) -> Iterator[Verdict]:
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            start = len(chunk) if end < 0 else end + 1
            if self.dropping is not None:
                self.dropped += len(piece)
                if end >= 0:
                    yield self._too_long()
                continue
            self.buffer += piece
            if len(self.buffer) > self.max_bytes:
                self.dropping, self.dropped = bytes(self.buffer[:HEAD]), len(self.buffer)
                self.buffer = bytearray()
                if end >= 0:
                    yield self._too_long()
                continue
            if end >= 0:
                line, self.buffer = bytes(self.buffer), bytearray()
                if line.strip():
                    yield self.judge(line)

    def _too_long(self) -> Verdict:
        head, size = self.dropping or b"", self.dropped
        self.dropping, self.dropped = None, 0
        found = _ID.search(head)
        ident = json.loads(found.group(1)) if found else None
        line = f"request line of {size} bytes is over the limit of {self.max_bytes} bytes"
        if valid_id(ident) and _TOOL_CALL.search(head):  # the model can send less: issue 30
            tool = _TOOL_NAME.search(head)
            name = tool.group(1).decode() if tool else "?"
            return Verdict(reply=tool_refusal(ident, (
                f"this call of {name} was dropped unread, nothing was run: its {line} "
                "(MUXPORT_MAX_REQUEST_BYTES); send less per call (a long text in parts, "
                "e.g. several paste_text calls)")))
        return Verdict(reply=error(ident, INVALID_REQUEST, (
            f"{line} (MUXPORT_MAX_REQUEST_BYTES); it was dropped unread: send less per call")))

    def judge(self, line: bytes) -> Verdict:
        try:
            data = json.loads(line)
        except (ValueError, RecursionError) as exc:
            return Verdict(reply=error(None, PARSE_ERROR, f"Parse error: {exc}"))
        if isinstance(data, list):
            return invalid(None, "batches are not supported (MCP 2025-06-18); send one message "
                           "per line")
        if not isinstance(data, dict):
            return invalid(None, "a JSON-RPC message is a JSON object")
        ident = data.get("id")
        known = ident if valid_id(ident) else None
        if data.get("jsonrpc") != "2.0":
            return invalid(known, '"jsonrpc" must be "2.0"')
        if "method" in data and "id" in data:
            return self._request(data, ident)
        if data.get("method") == "notifications/initialized":
            self.opened = True  # the SDK opens the session on it too, even without initialize
        if "method" in data or "result" in data or "error" in data:
            return self._other(data, known)
        return invalid(known, "neither a request, a notification nor a response")

    def _request(self, data: dict[str, Any], ident: object) -> Verdict:
        if not valid_id(ident) or bad_string(ident) is not None:
            return invalid(None, "the id must be a string or an integer (null is not allowed)")
        key = self.key(ident)
        if key in self.in_flight:
            return invalid(ident, f"id {ident!r} is already used by a request in flight; use a "
                           "new id")
        method, params = data.get("method"), data.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        refusal = self._before_handshake(method, params)
        argument = None if refusal else self._bad_argument(method, params)
        if argument is not None:  # the model can fix it: a tool error it reads (issue 30)
            return Verdict(reply=tool_refusal(ident, argument))
        refusal = refusal or bad_string(params, "params")
        if refusal is not None:
            return Verdict(reply=error(ident, INVALID_PARAMS, f"Invalid params: {refusal}"))
        if method == "tools/call" and isinstance(params, dict):
            arguments = params.get("arguments")
            if arguments is not None and not isinstance(arguments, dict):
                return Verdict(reply=tool_refusal(ident, (
                    f"arguments for {name} must be a JSON object of named arguments, not "
                    f"{type(arguments).__name__}; nothing was run: call again with "
                    'arguments like {"pane_id": "%1"} (see the tool\'s inputSchema)')))
        if method == early.DISCOVER and not self.settled:
            answered = self._discover(data, key)
            if answered is not None:
                return answered
        verdict = self._other(data, ident)
        if verdict.message is not None:
            self.settled = True
            self.in_flight[key] = isinstance(name, str) and self.is_quick(name)
            if method == "initialize":
                self.opened, self.initialize_key = True, key
        return verdict

    def _discover(self, data: dict[str, Any], key: object) -> Verdict | None:
        """A ``server/discover`` before any request reached the SDK is answered here (None:
        it is the SDK's to refuse). The SDK settles a connection's era on its first request,
        and a discover would settle it on 2026-07-28 for good: a client that gave up on the
        discover and fell back to ``initialize`` (Claude Code, after ~2.7 s) was refused
        -32022. A discover holds no state, so the era is left to the request that follows
        (docs/architecture.md, "Startup order")."""
        if key == self.answered_early:  # the launcher's thread answered it already
            self.answered_early = None
            return Verdict()
        found = early.answer(data)
        return None if found is None else Verdict(reply=found[1])

    def _before_handshake(self, method: object, params: object) -> str | None:
        """Why a request that needs the session must wait for ``initialize`` (None: it need
        not). A request in the 2026 envelope opens a session without a handshake."""
        if self.opened or not isinstance(method, str) or not method.startswith(GATED):
            return None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and types.PROTOCOL_VERSION_META_KEY in meta:
            return None
        return (f"{method} came before initialize: this session has had no handshake yet; "
                "send initialize first, then notifications/initialized, then the request")

    @staticmethod
    def _bad_argument(method: object, params: object) -> str | None:
        """A tool argument holding a string no tool can take (NUL, a lone surrogate), named
        by where it is, with the fix; None when the arguments are fine."""
        if method != "tools/call" or not isinstance(params, dict):
            return None
        found = bad_string(params.get("arguments"), "", nul=True)
        if found is None:
            return None
        name = params.get("name")
        return (f"argument {found} (tool {name if isinstance(name, str) else '?'}); "
                "nothing was run: call again with the argument fixed")

    def _other(self, data: dict[str, Any], known: object) -> Verdict:
        try:
            message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return invalid(known, f"{where}: {first['msg']}")
        release = None
        if data.get("method") == "notifications/cancelled":
            params = data.get("params") or {}
            cancelled = params.get("requestId") if isinstance(params, dict) else None
            if valid_id(cancelled):
                release = self.key(cancelled)  # a cancelled request gets no answer
        return Verdict(message=message, release=release)

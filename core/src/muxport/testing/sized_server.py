"""A minimal stdio MCP server with one tool, ``emit``, whose text answer is exactly
``chars`` characters of numbered lines (``line 000001 xxxx...``): the probe for how much of
one tool result a client hands its model (bench/measure_clients.py, docs/client-fit.md).

Run as ``python -m muxport.testing.sized_server``. It speaks the initialize handshake in
whatever revision the client asks for and refuses every other method (``server/discover``
among them), so a client falls back to the handshake at once.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

LINE = 100  # characters of one line, its newline included
TOOL = {
    "name": "emit",
    "description": "Return exactly `chars` characters of numbered text lines.",
    "inputSchema": {"type": "object", "properties": {"chars": {"type": "integer"},
                                                     "fill": {"type": "string"}},
                    "required": ["chars"]},
}


REPLAY = {
    "name": "look",
    "description": "Show what is new in the terminal.",
    "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
}
# MUXPORT_REPLAY=FILE (a JSON list of texts): ``look`` answers them in order (the plain
# driver's looks handed to a client: bench/measure_clients.py)
replayed: list[str] = []


def sized_text(chars: int, fill: str = "x") -> str:
    """``chars`` characters: lines ``line NNNNNN`` padded with ``fill`` (``"``: what JSON
    escapes) to 100, newline-ended; the last line is cut to fit. Line k starts at offset
    (k - 1) * 100."""
    lines = []
    count = chars // LINE + 1
    for k in range(1, count + 1):
        head = f"line {k:06d} "
        lines.append(head + fill[:1] * (LINE - 1 - len(head)) + "\n")
    return "".join(lines)[:chars]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None
    params = message.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}}, "serverInfo": {"name": "sized", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [TOOL, REPLAY] if replayed else [TOOL]}
    elif method == "tools/call" and params.get("name") == "look":
        text = replayed.pop(0) if len(replayed) > 1 else replayed[0]
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "tools/call":
        arguments = params.get("arguments") or {}
        text = sized_text(int(arguments.get("chars", 0)), str(arguments.get("fill") or "x"))
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": ident,
                "error": {"code": -32601, "message": f"method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def main() -> None:
    if os.environ.get("MUXPORT_REPLAY"):
        with open(os.environ["MUXPORT_REPLAY"]) as f:
            replayed.extend(json.load(f))
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

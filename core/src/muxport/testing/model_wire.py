"""The wire forms of the stand-in model API (``model_api``): one tool call or one text, as
the Anthropic Messages API, Gemini's ``generateContent`` and the OpenAI Responses API send
them, streamed (server-sent events) where the request asks for it."""

from __future__ import annotations

import itertools
import json
from typing import Any

FINAL = "done"  # the text of a model's turn once its script is done
WAITED = "stand-in: waited for the MCP server's tools"  # a step the script does not count
Call = tuple[str, dict[str, Any]] | None
_ids = itertools.count(1)
# Codex reaches a deferred MCP tool through its ``exec`` tool's JavaScript. The model's
# script waits (up to 30 s) for the tool to be there: Codex asks its model before a server
# that is still loading has listed its tools. It hands on the text blocks of the result,
# as a model forwarding the answer would.
EXEC = """let f;
for (let i = 0; i < 300 && !(f = tools.%s); i++) await new Promise((r) => setTimeout(r, 100));
const r = await f(%s);
text(typeof r === "string" ? r : r.content.map((c) => c.text ?? "").join(""));"""
WAIT = f"await new Promise((r) => setTimeout(r, 1000)); text({json.dumps(WAITED)});"


def dialect_of(path: str) -> str:
    if "generateContent" in path or "countTokens" in path or "/models/" in path:
        return "gemini"
    if "/responses" in path or "/chat/completions" in path:
        return "openai"
    return "anthropic"


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> list[bytes]:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n".encode())
    return out


def respond(dialect: str, path: str, body: dict[str, Any], call: Call) -> tuple[str, list[bytes]]:
    if path.endswith(("countTokens", "count_tokens")):
        return "application/json", [b'{"totalTokens": 10, "input_tokens": 10}']
    if dialect == "gemini":
        return gemini(path, body, call)
    if dialect == "openai":
        return responses(call)
    return anthropic(body, call)


def anthropic(body: dict[str, Any], call: Call) -> tuple[str, list[bytes]]:
    n = next(_ids)
    usage = {"input_tokens": 10, "output_tokens": 10}
    if call is None:
        block: dict[str, Any] = {"type": "text", "text": FINAL}
        start: dict[str, Any] = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": FINAL}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{n:06d}", "name": call[0], "input": call[1]}
        start = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call[1])}
        stop = "tool_use"
    message = {"id": f"msg_{n:06d}", "type": "message", "role": "assistant",
               "model": body.get("model", "stub"), "stop_sequence": None}
    if not body.get("stream"):
        whole = {**message, "content": [block], "stop_reason": stop, "usage": usage}
        return "application/json", [json.dumps(whole).encode()]
    return "text/event-stream", _sse([
        ("message_start", {"type": "message_start", "message": {
            **message, "content": [], "stop_reason": None, "usage": usage}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": start}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 10},
                           "delta": {"stop_reason": stop, "stop_sequence": None}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def gemini(path: str, body: dict[str, Any], call: Call) -> tuple[str, list[bytes]]:
    if call is None:
        config = body.get("generationConfig") or body.get("config") or {}
        wants_json = "json" in str(config.get("responseMimeType", ""))
        text = '{"reasoning": "done", "next_speaker": "user"}' if wants_json else FINAL
        part: dict[str, Any] = {"text": text}
    else:
        part = {"functionCall": {"name": call[0], "args": call[1]}}
    answer = {"candidates": [{"content": {"role": "model", "parts": [part]},
                              "finishReason": "STOP", "index": 0}],
              "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10,
                                "totalTokenCount": 20}}
    if "streamGenerateContent" in path:
        return "text/event-stream", _sse([(None, answer)])
    return "application/json", [json.dumps(answer).encode()]


def responses(call: Call) -> tuple[str, list[bytes]]:
    n = next(_ids)
    if call is None:
        item: dict[str, Any] = {"type": "message", "role": "assistant", "id": f"msg_{n}",
                                "status": "completed",
                                "content": [{"type": "output_text", "text": FINAL,
                                             "annotations": []}]}
    elif call[0].startswith("exec:"):
        item = {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}",
                "name": "exec",
                "input": EXEC % (call[0][5:], json.dumps(call[1])) if call[0][5:] else WAIT,
                "status": "completed"}
    else:
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                "name": call[0], "arguments": json.dumps(call[1]), "status": "completed"}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 20}
    response = {"id": f"resp_{n}", "object": "response", "status": "completed",
                "output": [item], "usage": usage}
    return "text/event-stream", _sse([
        ("response.created", {"type": "response.created",
                              "response": {**response, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"type": "response.output_item.added",
                                        "output_index": 0, "item": item}),
        ("response.output_item.done", {"type": "response.output_item.done",
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": response}),
    ])

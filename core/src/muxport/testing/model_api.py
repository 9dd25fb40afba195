"""A scripted stand-in for a model API on 127.0.0.1, for driving real MCP clients (Claude
Code, Gemini CLI, Codex) without a model: it answers the client's model requests with fixed
tool calls and records every request, i.e. what the client hands its model
(docs/client-fit.md, "Real clients").

Three dialects on one server: the Anthropic Messages API (``POST /v1/messages``, streamed as
server-sent events or not), Gemini's ``generateContent`` / ``streamGenerateContent``, and the
OpenAI Responses API (``POST /v1/responses``, streamed). A request that offers tools is the
model's turn: it gets the script's next call (the step is the number of tool results the
conversation already holds), then a final text. Any other request (titles, checks) gets a
short text.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from muxport.testing import model_wire
from muxport.testing.model_wire import WAITED

Call = tuple[str, dict[str, Any]]
# a step: a fixed call, or one made from the results the model has had so far
Step = Call | Callable[[list[str]], Call]
Script = list[Step]


@dataclass
class Request:
    """One model request the client made: its dialect, path and JSON body."""

    dialect: str
    path: str
    body: dict[str, Any]

    def tools(self) -> list[str]:
        """The names of the tools the client offered its model."""
        if self.dialect == "anthropic":
            return [t.get("name", "") for t in self.body.get("tools") or []]
        if self.dialect == "gemini":
            return [d["name"] for t in self.body.get("tools") or []
                    for d in t.get("functionDeclarations") or []]
        return list(_responses_tools(self.body))

    def results(self) -> list[str]:
        """Every tool result in the conversation, as the text the model is shown (the
        stand-in's own waits left out)."""
        return [text for text in _results(self.dialect, self.body) if WAITED not in text]

    def names(self, server: str) -> bool:
        """Whether the request mentions MCP server ``server``'s tools at all."""
        return f"mcp__{server}" in json.dumps(self.body)


def _responses_tools(body: dict[str, Any]) -> Iterator[str]:
    """Responses API tools, nested in namespaces and in ``additional_tools`` input items
    (Codex); a deferred namespace (``Deferred tool namespaces: - mcp__muxport``: tools
    reached through the ``exec`` tool's JavaScript) as ``NAMESPACE.*``."""
    def walk(tools: list[Any]) -> Iterator[str]:
        for tool in tools:
            if tool.get("type") == "namespace":
                yield from walk(tool.get("tools") or [])
            elif "name" in tool:
                yield tool["name"]
    yield from walk(body.get("tools") or [])
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            yield from walk(item.get("tools") or [])
    text = json.dumps(body.get("input") or [])
    for deferred in re.findall(r"Deferred tool namespaces:((?:\\n- [\w-]+)+)", text):
        yield from (f"{name}.*" for name in re.findall(r"- ([\w-]+)", deferred))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text_of(part.get("text", part.get("output", part)))
                       if isinstance(part, dict) else str(part) for part in content)
    return json.dumps(content, ensure_ascii=False)


def _results(dialect: str, body: dict[str, Any]) -> Iterator[str]:
    if dialect == "anthropic":
        for message in body.get("messages") or []:
            for block in message.get("content") if isinstance(message.get("content"), list) \
                    else []:
                if block.get("type") == "tool_result":
                    yield _text_of(block.get("content", ""))
    elif dialect == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                if "functionResponse" in part:  # the model reads {"output": text}
                    response = part["functionResponse"].get("response", {})
                    output = response.get("output") if isinstance(response, dict) else None
                    yield output if isinstance(output, str) else _text_of(response)
    else:
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in (
                    "function_call_output", "custom_tool_call_output"):
                yield _text_of(item.get("output", ""))


@dataclass
class ModelStub:
    """``script``: the calls the model makes, in order, as (tool, arguments); ``tool`` is
    matched against the end of the names the client offers (``mcp__muxport__capture_pane``
    ends with ``capture_pane``); ``before[k]`` runs once before the model makes call ``k``
    (what happens in the world between the model's turns)."""

    script: Script = field(default_factory=list)
    before: dict[int, Callable[[], None]] = field(default_factory=dict)
    server: str = "muxport"  # the MCP server's name in the client's configuration
    requests: list[Request] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ModelStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # model listings and the like: nothing here
                self._send(200, "application/json", b'{"data": [], "models": []}')

            def do_HEAD(self) -> None:
                self._send(200, "text/plain", b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                ctype, chunks = stub.answer(self.path, body)
                self._send(200, ctype, b"".join(chunks))

            def _send(self, status: int, ctype: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    # what the model answers

    def main_requests(self) -> list[Request]:
        """The requests that offered the script's tools (the model's turns)."""
        return [r for r in self.requests if self._offers(r)]

    def handed(self) -> list[str]:
        """Each tool result as the model got it in the turn right after the call (a client
        may shorten old results in later turns: Gemini CLI does)."""
        out: list[str] = []
        for request in self.main_requests():
            results = request.results()
            out.extend(results[len(out):])
        return out

    def _offers(self, request: Request) -> bool:
        names = request.tools()
        wanted = {step[0] for step in self.script if isinstance(step, tuple)} or {""}
        return any(self._name(names, tool) for tool in wanted)

    def _name(self, names: list[str], tool: str) -> str | None:
        ends = ("_" + tool, "__" + tool, "." + tool)
        # the server's own first: Gemini CLI has a run_shell_command of its own
        for name in names:
            if self.server in name and name.endswith(ends):
                return name
        for name in names:
            if name == tool or name.endswith(ends):
                return name
        if "exec" in names:  # Codex: MCP tools are reached through its exec tool's script
            return f"exec:mcp__{self.server}__{tool}"  # (model_wire.EXEC)
        return None

    def next_call(self, request: Request) -> tuple[str, dict[str, Any]] | None:
        step = len(request.results())
        if not self._offers(request) or step >= len(self.script):
            return None
        if request.dialect == "openai" and not request.names(self.server):
            return ("exec:", {})  # Codex asked before the server listed its tools: wait
        if step in self.before:
            self.before.pop(step)()
        made = self.script[step]
        tool, arguments = made if isinstance(made, tuple) else made(request.results())
        name = self._name(request.tools(), tool)
        return (name, arguments) if name else None

    def answer(self, path: str, body: dict[str, Any]) -> tuple[str, list[bytes]]:
        dialect = model_wire.dialect_of(path)
        request = Request(dialect, path, body)
        if not path.endswith(("countTokens", "count_tokens")):
            self.requests.append(request)
        return model_wire.respond(dialect, path, body, self.next_call(request))

"""Real MCP clients from npm (Claude Code, Gemini CLI, Codex) driven headless against a
scripted stand-in for their model API (muxport.testing.model_api), with muxport as their
one MCP server on a private tmux server. What the tests read is what the client handed
its model (docs/client-fit.md, "Real clients"). Skipped where npm cannot bring a client.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from muxport.testing import agents, stdio_recorder
from muxport.testing.clients import launcher
from muxport.testing.model_api import ModelStub, Request
from muxport.testing.server import TmuxServer

CLIENTS = ("claude", "gemini", "codex")
# what a client puts in place of a result it did not pass whole (docs/client-fit.md)
CUT_MARKS = ("<persisted-output>", "Output too large", "truncated output", "tokens truncated")
# muxport's own plumbing: marker rows, private run directories, the typed run line
PLUMBING = (re.compile(r"[0-9a-f]{32}:(s\b|e:)"), re.compile(r"mxr-"),
            re.compile(r"\\\. '/tmp/"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.clients)


@pytest.fixture(params=CLIENTS)
def client(request: pytest.FixtureRequest) -> str:
    """Each client, installed into the cache (or the test skipped, saying why)."""
    name = str(request.param)
    why = agents.install(name)
    if why is not None:
        pytest.skip(f"{name} not installed: {why}")
    return name


@dataclass
class Drive:
    """One headless run of a client: the stand-in's record and the client's exit."""

    stub: ModelStub
    done: subprocess.CompletedProcess[str]

    def first(self) -> Request:
        """The model's first request: the first that offers any tools."""
        return next(r for r in self.stub.requests if r.tools())

    def results(self) -> list[str]:
        """Every tool result the model was handed, in order, each as of the turn after it."""
        turns = self.stub.main_requests()
        assert turns, f"no model turn offered the tools; stderr: {self.done.stderr[-2000:]}"
        return self.stub.handed()

    def result(self, index: int = 0) -> str:
        results = self.results()
        assert len(results) > index, (results, self.done.stderr[-2000:])
        return results[index]


Driver = Callable[..., Drive]


@pytest.fixture
def drive(tmux_server: TmuxServer, tmp_path: Path) -> Iterator[Driver]:
    """``drive(client, [(tool, arguments), ...])``: the client's model calls those tools in
    order through muxport on ``tmux_server``; ``record=PATH`` records muxport's stdio."""

    def run(name: str, script: list[tuple[str, dict[str, Any]]], record: Path | None = None,
            tool_search: bool = False, timeout: float = 240) -> Drive:
        command, args = launcher(), []
        if record is not None:
            command, args = sys.executable, [stdio_recorder.__file__, str(record), launcher()]
        server = agents.Server(command, args, {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path})
        with ModelStub(script=script) as stub:
            done = agents.run(name, server, stub.url, timeout=timeout, tool_search=tool_search)
        return Drive(stub, done)

    yield run


def assert_whole(result: str, newest: str) -> None:
    """The client handed its model the result whole, with the pane's newest line."""
    cut = [mark for mark in CUT_MARKS if mark in result]
    assert cut == [], f"the client cut the result ({cut}); {len(result)} chars: {result[:300]}"
    assert newest in result, f"{newest!r} not in the {len(result)} chars: {result[-300:]}"


def plumbing_in(text: str) -> list[str]:
    return [m.group(0) for pattern in PLUMBING for m in pattern.finditer(text)]


def messages(log: Path) -> list[dict[str, Any]]:
    """A recorded stdio log: every message with its time, direction and parsed body."""
    out = []
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        try:
            entry["body"] = json.loads(entry["msg"])
        except ValueError:
            entry["body"] = {}
        out.append(entry)
    return out

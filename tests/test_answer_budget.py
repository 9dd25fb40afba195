"""The answer budget over real stdio (README, "Answers a client keeps"): no answer's text is
larger than a client keeps (80,000 bytes by default, MUXPORT_MAX_ANSWER_BYTES), the newest
lines are the ones kept, `truncated` and the count of what was left out say so, and the
note names the call that returns the rest; a batch's reads share one budget."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from muxport.testing import text_block

from tests.wire_kit import Wire

pytestmark = pytest.mark.timeout(120)
LINES, WIDTH = 5000, 300
BUDGET = 80_000


def open_wire(tmux_server: Any, **env: str) -> Wire:
    wire = Wire({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, **env})
    wire.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "budget", "version": "0"}})
    return wire


@pytest.fixture
def full_pane(tmux_server: Any, shell_pane: Any) -> Iterator[Any]:
    """A pane whose history holds 5000 lines of 300 characters: 000...0001 to 000...5000."""
    tmux_server.cmd("set-option", "-g", "history-limit", "20000")
    pane = shell_pane("bash", width=320)
    pane.run(f"clear; seq -f '%0{WIDTH}.0f' 1 {LINES}")
    yield pane


def text_of(answer: dict[str, Any], body: str | None = "content") -> tuple[int, dict[str, Any]]:
    """The bytes of an answer's text, and the answer it holds (a batch has no ``body``: its
    results are nested answers, JSON in its first line)."""
    (content,) = answer["result"]["content"]
    return len(content["text"].encode()), text_block(content["text"], body)


def numbers(lines: list[str]) -> list[int]:
    return [int(line) for line in lines if len(line) == WIDTH and line.isdigit()]


def test_a_capture_of_5000_long_lines_is_one_answer_within_80_kb(
    tmux_server: Any, full_pane: Any
) -> None:
    wire = open_wire(tmux_server)
    try:
        arguments = {"pane_id": full_pane.pane_id, "history": True, "max_lines": LINES}
        wire_size, answer = wire.request("tools/call", {"name": "capture_pane",
                                                        "arguments": arguments})
        size, data = text_of(answer)
        assert size <= BUDGET, size
        assert wire_size <= 2 * BUDGET + 1_000  # the text, and structuredContent beside it
        structured = answer["result"]["structuredContent"]
        assert data == {k: v for k, v in structured.items() if k != "line_count"}
        assert structured["line_count"] == len(data["content"])
        kept = numbers(data["content"])
        assert kept[-1] == LINES and kept == list(range(kept[0], LINES + 1))  # the newest
        assert data["truncated"] is True and size > BUDGET - 3_000  # the budget is used
        assert data["lines_dropped"] == len(full_pane.screen(history=True)) - len(
            data["content"])
        # the note names the call that returns the older lines, and it does
        skip = len(data["content"])
        said = f"capture_pane with the same arguments and skip: {skip} returns the ones before"
        assert said in data["note"], data["note"]
        _, older = wire.request("tools/call", {"name": "capture_pane",
                                               "arguments": {**arguments, "skip": skip}})
        size, before = text_of(older)
        assert size <= BUDGET
        assert numbers(before["content"]) == list(range(kept[0] - len(numbers(
            before["content"])), kept[0]))
    finally:
        wire.close()


def test_a_batch_shares_one_budget(tmux_server: Any, full_pane: Any) -> None:
    wire = open_wire(tmux_server)
    try:
        read = {"tool": "capture_pane", "arguments": {
            "pane_id": full_pane.pane_id, "history": True, "max_lines": LINES}}
        _, answer = wire.request("tools/call", {"name": "call_read_tools_batch",
                                                "arguments": {"operations": [read] * 8}})
        size, data = text_of(answer, None)
        assert size <= BUDGET, size
        results = [row["result"] for row in data["results"]]
        assert all(row["success"] for row in data["results"])
        first = numbers(results[0]["content"])
        assert first[-1] == LINES and results[0]["truncated"] is True
        assert sum(len(r["content"]) for r in results if r) < 2 * len(first)  # one budget
    finally:
        wire.close()


def test_the_budget_is_configurable(tmux_server: Any, full_pane: Any) -> None:
    wire = open_wire(tmux_server, MUXPORT_MAX_ANSWER_BYTES="20000")
    try:
        arguments = {"pane_id": full_pane.pane_id, "history": True, "max_lines": 1000}
        _, answer = wire.request("tools/call", {"name": "capture_pane", "arguments": arguments})
        size, data = text_of(answer)
        assert 15_000 < size <= 20_000, size
        assert numbers(data["content"])[-1] == LINES and data["truncated"] is True
    finally:
        wire.close()

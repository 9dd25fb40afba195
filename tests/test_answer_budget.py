"""The answer budget over real stdio (README, "Answers a client keeps"; docs/answers.md, "The
answer budget"): no answer is larger than a client hands its model whole, counted in
characters of what a client shows (the text block, and `structuredContent` as compact JSON:
Claude Code shows that one), 30,000 by default, a known client's own, or the operator's
(MUXPORT_MAX_ANSWER_CHARS, or its first name MUXPORT_MAX_ANSWER_BYTES); the newest lines are
the ones kept, in both forms; `truncated` and the count of what was left out say so, and
the note names the call that returns the rest; a batch's reads share one budget."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from mcp.types import Implementation, TextResourceContents
from muxport.testing import text_block

from tests.wire_kit import Wire

pytestmark = pytest.mark.timeout(180)
LINES, WIDTH = 5000, 300
BUDGET = 30_000  # the default: no client in the table, no setting
# A line a client pays twice for in JSON: every `"` and `\` is escaped there.
HARD = '"\\' * 60


def open_wire(tmux_server: Any, client: str = "budget", **env: str) -> Wire:
    wire = Wire({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, **env})
    wire.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": client, "version": "0"}})
    return wire


@pytest.fixture
def full_pane(tmux_server: Any, shell_pane: Any) -> Iterator[Any]:
    """A pane whose history holds 5000 lines of 300 characters: 000...0001 to 000...5000."""
    tmux_server.cmd("set-option", "-g", "history-limit", "20000")
    pane = shell_pane("bash", width=320)
    pane.run(f"clear; seq -f '%0{WIDTH}.0f' 1 {LINES}")
    yield pane


@pytest.fixture
def hard_pane(tmux_server: Any, shell_pane: Any) -> Iterator[Any]:
    """A pane whose history holds 5000 lines full of `"` and `\\`, numbered 00001 to 05000."""
    tmux_server.cmd("set-option", "-g", "history-limit", "20000")
    pane = shell_pane("bash", width=320)
    pane.run(f"clear; for i in $(seq 1 {LINES}); do printf '%05d %s\\n' $i '{HARD}'; done")
    yield pane


def shown(answer: dict[str, Any], body: str | None = "content") -> tuple[int, int, dict[str, Any]]:
    """Characters of an answer's text, of its structuredContent as compact JSON (what Claude
    Code shows its model), and the answer the text holds (a batch has no ``body``)."""
    (content,) = answer["result"]["content"]
    structured = answer["result"]["structuredContent"]
    as_json = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    return len(content["text"]), len(as_json), text_block(content["text"], body)


def numbers(lines: list[str]) -> list[int]:
    return [int(line) for line in lines if len(line) == WIDTH and line.isdigit()]


def test_a_capture_of_5000_long_lines_is_one_answer_within_the_budget(
    tmux_server: Any, full_pane: Any
) -> None:
    wire = open_wire(tmux_server)
    try:
        arguments = {"pane_id": full_pane.pane_id, "history": True, "max_lines": LINES}
        _, answer = wire.request("tools/call", {"name": "capture_pane", "arguments": arguments})
        text, structured, data = shown(answer)
        assert text <= BUDGET and structured <= BUDGET, (text, structured)
        kept = numbers(data["content"])
        assert kept[-1] == LINES and kept == list(range(kept[0], LINES + 1))  # the newest
        assert numbers(answer["result"]["structuredContent"]["content"]) == kept
        assert data["truncated"] is True and structured > BUDGET - 3_000  # the budget is used
        assert data["lines_dropped"] == len(full_pane.screen(history=True)) - len(
            data["content"])
        # the note names the call that returns the older lines, and it does
        skip = len(data["content"])
        said = f"capture_pane with the same arguments and skip: {skip} returns the ones before"
        assert said in data["note"], data["note"]
        _, older = wire.request("tools/call", {"name": "capture_pane",
                                               "arguments": {**arguments, "skip": skip}})
        text, structured, before = shown(older)
        assert text <= BUDGET and structured <= BUDGET
        assert numbers(before["content"]) == list(range(kept[0] - len(numbers(
            before["content"])), kept[0]))
    finally:
        wire.close()


def hard_numbers(lines: list[str]) -> list[int]:
    return [int(line[:5]) for line in lines if line == f"{line[:5]} {HARD}"]


def test_lines_full_of_quotes_fit_in_both_forms_newest_kept(
    tmux_server: Any, hard_pane: Any
) -> None:
    """A capture, a 16-capture batch and a long run's output, each of lines that JSON
    escapes at every other character: the text and structuredContent's JSON are each within
    the budget's characters, and both end with the pane's newest line."""
    wire = open_wire(tmux_server)
    try:
        read = {"pane_id": hard_pane.pane_id, "history": True, "max_lines": LINES}
        _, answer = wire.request("tools/call", {"name": "capture_pane", "arguments": read})
        text, structured, data = shown(answer)
        assert text <= BUDGET and structured <= BUDGET, (text, structured)
        assert hard_numbers(data["content"])[-1] == LINES
        assert hard_numbers(answer["result"]["structuredContent"]["content"])[-1] == LINES
        assert data["truncated"] is True and data["lines_dropped"] > 0

        batch = {"operations": [{"tool": "capture_pane", "arguments": read}] * 16}
        _, answer = wire.request("tools/call", {"name": "call_read_tools_batch",
                                                "arguments": batch})
        text, structured, data = shown(answer, None)
        assert text <= BUDGET and structured <= BUDGET, (text, structured)
        for form in (data, answer["result"]["structuredContent"]):
            first = form["results"][0]["result"]
            assert hard_numbers(first["content"])[-1] == LINES and first["truncated"] is True

        run = {"pane_id": hard_pane.pane_id, "max_lines": LINES, "command":
               f"for i in $(seq 1 20000); do printf '%05d %s\\n' $i '{HARD}'; done"}
        _, answer = wire.request("tools/call", {"name": "run_shell_command", "arguments": run})
        text, structured, data = shown(answer, "output")
        assert text <= BUDGET and structured <= BUDGET, (text, structured)
        assert data["outcome"] == "completed" and data["truncated"] is True
        newest = "20000 " + HARD
        assert data["output"][-1] == newest
        assert answer["result"]["structuredContent"]["output"][-1] == newest
    finally:
        wire.close()


def test_a_batch_shares_one_budget(tmux_server: Any, full_pane: Any) -> None:
    wire = open_wire(tmux_server)
    try:
        read = {"tool": "capture_pane", "arguments": {
            "pane_id": full_pane.pane_id, "history": True, "max_lines": LINES}}
        _, answer = wire.request("tools/call", {"name": "call_read_tools_batch",
                                                "arguments": {"operations": [read] * 8}})
        text, structured, data = shown(answer, None)
        assert text <= BUDGET and structured <= BUDGET, (text, structured)
        results = [row["result"] for row in data["results"]]
        assert all(row["success"] for row in data["results"])
        first = numbers(results[0]["content"])
        assert first[-1] == LINES and results[0]["truncated"] is True
        assert sum(len(r["content"]) for r in results if r) < 2 * len(first)  # one budget
    finally:
        wire.close()


def budget_report(wire: Wire) -> dict[str, Any]:
    _, answer = wire.request("resources/read", {"uri": "tmux://capabilities"})
    (contents,) = answer["result"]["contents"]
    report: dict[str, Any] = json.loads(contents["text"])["answer_budget"]
    return report


@pytest.mark.parametrize(("env", "limit"), [
    ({"MUXPORT_MAX_ANSWER_CHARS": "20000"}, 20_000),
    ({"MUXPORT_MAX_ANSWER_BYTES": "60000"}, 60_000),  # its first name, raised
])
def test_the_operator_sets_the_budget_for_every_client(
    tmux_server: Any, full_pane: Any, env: dict[str, str], limit: int
) -> None:
    wire = open_wire(tmux_server, "claude-code", **env)
    try:
        arguments = {"pane_id": full_pane.pane_id, "history": True, "max_lines": LINES}
        _, answer = wire.request("tools/call", {"name": "capture_pane", "arguments": arguments})
        text, structured, data = shown(answer)
        assert limit - 3_000 < structured <= limit and text <= limit, (text, structured)
        assert numbers(data["content"])[-1] == LINES and data["truncated"] is True
        report = budget_report(wire)
        assert report["characters"] == limit and "set by the operator" in report["why"]
    finally:
        wire.close()


@pytest.mark.parametrize(("client", "limit", "said"), [
    ("claude-code", 45_000, "Claude Code"),
    ("gemini-cli-mcp-client", 36_000, "Gemini CLI"),
    ("some-editor", BUDGET, "the default"),
])
def test_a_known_client_gets_its_own_budget_and_the_report_says_why(
    tmux_server: Any, full_pane: Any, client: str, limit: int, said: str
) -> None:
    wire = open_wire(tmux_server, client)
    try:
        arguments = {"pane_id": full_pane.pane_id, "history": True, "max_lines": LINES}
        _, answer = wire.request("tools/call", {"name": "capture_pane", "arguments": arguments})
        text, structured, _ = shown(answer)
        assert limit - 3_000 < structured <= limit and text <= limit, (text, structured)
        report = budget_report(wire)
        assert report["characters"] == limit and said in report["why"], report
    finally:
        wire.close()


async def test_a_2026_client_named_in_the_request_metadata_gets_its_own_budget(
    mcp_client: Any,
) -> None:
    """A 2026-07-28 client sends no initialize: it names itself in each request's `_meta`
    (`io.modelcontextprotocol/clientInfo`), and that picks its budget too."""
    async with mcp_client(toolsets=["inspect"]) as (_legacy, app):
        async with Client(app.server.lowlevel, mode="2026-07-28",
                          client_info=Implementation(name="gemini-cli-mcp-client",
                                                     version="0.61")) as modern:
            read = await modern.read_resource("tmux://capabilities")
    (contents,) = read.contents
    assert isinstance(contents, TextResourceContents)
    report = json.loads(contents.text)["answer_budget"]
    assert report["characters"] == 36_000 and "Gemini CLI" in report["why"], report

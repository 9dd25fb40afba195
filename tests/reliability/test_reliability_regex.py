"""Client regexes cannot freeze the server: RE2 answers polynomial patterns on long lines
at once, everyday patterns are accepted, and what RE2 cannot do is refused in its words."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest
from reliability_kit import STATS, error_code

pytestmark = pytest.mark.timeout(90)
SUBJECTS = {r".*.*.*x": "a" * 8192, r"\s*\s*\s*\s*$": " " * 8191 + "a"}
BOUND = 0.05  # seconds a polynomial pattern may add to a call (docs/reliability.md)


def print_line(pane: Any, text: str) -> None:
    """Print ``text`` as one line of the pane (written by python, not typed: 8 KiB)."""
    pane.run(f"python3 -c \"print({text[0]!r} * {len(text) - 1} + {text[-1]!r})\"")


async def fastest(client: Any, tool: str, args: dict[str, Any]) -> float:
    """The quickest of three round trips (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(3):
        started = time.monotonic()
        result = await client.call_tool(tool, args)
        best = min(best, time.monotonic() - started)
        assert not result.is_error, result.content
    return best


@pytest.mark.parametrize("pattern", list(SUBJECTS))
async def test_polynomial_pattern_on_8k_line_is_quick(
    stdio_client, shell_pane, sandbox, pattern
):
    pane = shell_pane("bash", width=400, height=60)  # the whole 8 KiB line stays on screen
    print_line(pane, SUBJECTS[pattern])
    async with stdio_client(toolsets=["inspect"]) as client:
        plain = await fastest(client, "search_panes", {"pattern": "zzz", "regex": True})
        heavy = await fastest(client, "search_panes", {"pattern": pattern, "regex": True})
        STATS.regex_checks += 1
        assert heavy - plain < BOUND, (pattern, heavy, plain)
        entry = {"pane_id": pane.pane_id, "patterns": [pattern], "regex": True, "timeout": 0}
        plain_wait = await fastest(client, "wait_for_text", {**entry, "patterns": ["zzz"]})
        heavy_wait = await fastest(client, "wait_for_text", entry)
        assert heavy_wait - plain_wait < BOUND, (pattern, heavy_wait, plain_wait)


async def test_list_sessions_answers_while_a_wait_matches_long_lines(
    stdio_client, shell_pane, sandbox
):
    pane = shell_pane("bash", width=400, height=60)
    async with stdio_client(toolsets=["inspect"]) as client:
        print_line(pane, "a" * 8192)  # on the screen at entry: matched against at once
        answers: list[Any] = []
        async with anyio.create_task_group() as group:

            async def wait() -> None:
                answers.append(await client.call_tool("wait_for_text", {
                    "pane_id": pane.pane_id, "patterns": [r".*.*.*Q", r"\s*\s*\s*\s*Q"],
                    "regex": True, "timeout": 3,
                }))

            group.start_soon(wait)
            for _ in range(3):  # output the wait must match against, several times
                print_line(pane, "a" * 8192)
                started = time.monotonic()
                listed = await client.call_tool("list_sessions", {})
                assert not listed.is_error
                assert time.monotonic() - started < 1.0
                assert not answers, "the wait ended before its timeout"
        STATS.regex_checks += 1
        (result,) = answers
        assert result.structured_content["outcome"] == "timed_out", result.structured_content


@pytest.mark.parametrize(("pattern", "line"), [(r"(\d+\.)+\d+", "version 1.2.33 ok"),
                                               (r"(error|warn)+", "a warnerror here")])
async def test_everyday_patterns_are_accepted(stdio_client, shell_pane, sandbox, pattern, line):
    pane = shell_pane("bash")
    pane.run(f"echo '{line}'")
    async with stdio_client(toolsets=["inspect"]) as client:
        found = await client.call_tool("search_panes", {"pattern": pattern, "regex": True})
        assert not found.is_error, found.content
        assert line in [m["line"] for m in found.structured_content["matches"]]
        waited = await client.call_tool("wait_for_text", {
            "pane_id": pane.pane_id, "patterns": [pattern], "regex": True, "timeout": 0})
        assert waited.structured_content["outcome"] == "present_at_entry"
        STATS.regex_checks += 1


@pytest.mark.parametrize("tool", ["search_panes", "wait_for_text"])
async def test_backreference_is_refused_in_re2s_words(stdio_client, shell_pane, sandbox, tool):
    pane = shell_pane("bash")
    async with stdio_client(toolsets=["inspect"]) as client:
        args: dict[str, Any] = {"pattern": r"(a)\1", "regex": True}
        if tool == "wait_for_text":
            args = {"pane_id": pane.pane_id, "patterns": [r"(a)\1"], "regex": True, "timeout": 0}
        refused = await client.call_tool(tool, args)
        assert refused.is_error
        assert error_code(refused) == "invalid_argument"
        text = refused.content[0].text
        assert "invalid escape sequence: \\1" in text and "backreferences" in text, text
        STATS.regex_checks += 1

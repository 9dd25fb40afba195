"""Client regexes cannot freeze the server: RE2 answers polynomial patterns on long lines
at once, everyday patterns are accepted, what RE2 cannot do is refused in its words, and
no other call waits behind any pattern a client may send (the hostile corpus of the kit:
refused as pattern_too_costly, or searched off the event loop within a CPU budget)."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest
from muxport.testing import HOSTILE_PATTERNS, answer_of
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


# A call that waited behind a search would wait for the search's CPU budget
# (MAX_MATCH_SECONDS, 1 s) or for a whole pass of it. The 50 ms of issue 21 is measured, not
# asserted (`bench/run regex`, docs/reliability.md): on CI's shared 2-core machine other load
# alone slowed one list_sessions of 10 to 51-127 ms with the loop free.
BEHIND = 0.25
ROUNDS = 10
# A pattern that holds the loop fails every attempt; one attempt may still meet a moment
# when the machine is busy with other work.
ATTEMPTS = 3


async def beside_hostile(
    client: Any, tool: str, args: dict[str, Any]
) -> tuple[list[float], list[Any]]:
    """``ROUNDS`` list_sessions one after another while calls of ``tool`` with ``args`` run
    back to back (a costly pattern's call is in flight throughout): each list_sessions'
    round trip, and the hostile answers."""
    latencies: list[float] = []
    answers: list[Any] = []
    started = anyio.Event()
    done = False

    async def hostile() -> None:
        while not done:
            call = client.call_tool(tool, args)
            started.set()
            answers.append(await call)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(hostile)
            await started.wait()
            for _ in range(ROUNDS):
                begun = time.monotonic()
                listed = await client.call_tool("list_sessions", {})
                latencies.append(time.monotonic() - begun)
                assert not listed.is_error, listed.content
            done = True
    return latencies, answers


async def slowest_beside(client: Any, name: str, tool: str, args: dict[str, Any]) -> list[float]:
    """The slowest list_sessions of each attempt, stopping at the first within the bound."""
    slowest: list[float] = []
    while len(slowest) < ATTEMPTS:
        latencies, answers = await beside_hostile(client, tool, args)
        check_hostile_answers(name, answers)
        slowest.append(round(max(latencies), 3))
        if slowest[-1] <= BEHIND:
            break
    STATS.regex_checks += 1
    return slowest


def check_hostile_answers(name: str, answers: list[Any]) -> None:
    """Each answer is a result or pattern_too_costly naming the measured cost and the limit."""
    assert answers, name
    for answer in answers:
        if not answer.is_error:
            continue
        assert error_code(answer) == "pattern_too_costly", (name, answer.content[0].text)
        assert answer.meta["limit"] < answer.meta["measured"], (name, answer.meta)
        text = answer.content[0].text
        assert "too costly to run" in text and "more than" in text, (name, text)


@pytest.mark.timeout(300)
async def test_no_call_waits_behind_a_hostile_pattern_on_8k_of_text(
    stdio_client, shell_pane, sandbox
):
    """While a legal 4 KB RE2 pattern (or any other of the hostile corpus) searches 8 KB of
    text, list_sessions does not wait behind it, 10 of 10 (issue 21's 50 ms: bench/run regex)."""
    pane = shell_pane("bash", width=400, height=60)
    print_line(pane, "a" * 8192)
    async with stdio_client(toolsets=["inspect"]) as client:
        await client.call_tool("list_sessions", {})  # warm: the first call pays for imports
        slowest = {
            name: await slowest_beside(
                client, name, "search_panes", {"pattern": pattern, "regex": True}
            )
            for name, pattern in HOSTILE_PATTERNS.items()
        }
        late = {name: times for name, times in slowest.items() if min(times) > BEHIND}
        assert not late, f"list_sessions waited behind a search (each attempt, seconds): {late}"


@pytest.mark.timeout(300)
async def test_no_call_waits_behind_a_hostile_pattern_on_a_5000_line_scrollback(
    stdio_client, tmux_server, shell_pane, sandbox
):
    """The same with wait_for_text reading 5,000 new lines from a cursor."""
    tmux_server.cmd("set", "-g", "history-limit", "10000")
    pane = shell_pane("bash", width=200, height=40)
    async with stdio_client(toolsets=["inspect"]) as client:
        base = await client.call_tool("wait_for_text", {"pane_id": pane.pane_id, "timeout": 0})
        cursor = answer_of(base)["cursor"]
        pane.run("python3 -c \"print(('a' * 199 + '\\n') * 5000, end='')\"")
        slowest = {}
        for name, pattern in HOSTILE_PATTERNS.items():
            args = {"pane_id": pane.pane_id, "patterns": [pattern], "regex": True,
                    "cursor": cursor, "timeout": 0, "max_lines": 5000}
            slowest[name] = await slowest_beside(client, name, "wait_for_text", args)
        late = {name: times for name, times in slowest.items() if min(times) > BEHIND}
        assert not late, f"list_sessions waited behind a search (each attempt, seconds): {late}"

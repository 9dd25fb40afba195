"""Hostile client patterns (issue 21): what each costs muxport, and what other calls wait.

The corpus is the test kit's ``HOSTILE_PATTERNS`` (alternations of counted repeats, nested
repeats, large character classes, long literal alternations; each at most 4,096 bytes).

- in process: each pattern compiled as a call does (``compile_pattern``), counting the
  refused ones, the largest legal program, and the longest single RE2 compile: the time
  the GIL (and so the event loop) is held, since RE2's binding compiles holding it;
- over stdio (the launcher): 10 ``list_sessions`` one after another while calls with one
  pattern run back to back, for every pattern, on a pane holding 8 KB of ``a``
  (``search_panes``) and on 5,000 new lines of a scrollback (``wait_for_text`` from a
  cursor): the slowest and the median of all those round trips.

The peer's search is Python's ``re`` (it backtracks): not measured here.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
import muxport._internal.regex as regex
from muxport.testing import HOSTILE_PATTERNS

from bench.harness import Row, connect, median, met, ms, tmux_box

ROUNDS = 10
BOUND = 0.05
PEER = "not measured (Python re)"


def compile_costs() -> tuple[dict[str, str], float, int]:
    """Each pattern's outcome, the longest single RE2 compile, the largest legal program."""
    holds: list[float] = []
    original = regex._re2

    def timed(text: str, memory: int) -> Any:
        started = time.perf_counter()
        try:
            return original(text, memory)
        finally:
            holds.append(time.perf_counter() - started)

    outcomes: dict[str, str] = {}
    largest = 0
    regex._re2 = timed
    try:
        for name, pattern in HOSTILE_PATTERNS.items():
            try:
                compiled = regex.compile_pattern(pattern)
            except regex.PatternTooCostly as exc:
                outcomes[name] = f"refused: {exc.data['measured']} > {exc.data['limit']}"
            else:
                outcomes[name] = f"legal: {compiled.program_size} instructions"
                largest = max(largest, compiled.program_size)
    finally:
        regex._re2 = original
    return outcomes, max(holds), largest


async def beside(session: Any, tool: str, args: dict[str, Any]) -> list[float]:
    """``ROUNDS`` list_sessions round trips while ``tool`` runs back to back with ``args``."""
    laps: list[float] = []
    done = False

    async def hostile() -> None:
        while not done:
            await session.call(tool, args)

    async with anyio.create_task_group() as group:
        group.start_soon(hostile)
        await anyio.lowlevel.checkpoint()
        for _ in range(ROUNDS):
            start = time.perf_counter()
            await session.call("list_sessions", {})
            laps.append(time.perf_counter() - start)
        done = True
    return laps


async def latencies() -> dict[str, list[float]]:
    laps: dict[str, list[float]] = {"8 KB": [], "5000 lines": []}
    async with tmux_box(400, 60) as (box, pane), connect(
        "muxport", box, {"LIBTMUX_TOOLSETS": "inspect"}
    ) as session:
        pane.run("python3 -c \"print('a' * 8192)\"")
        await session.call("list_sessions", {})
        for pattern in HOSTILE_PATTERNS.values():
            laps["8 KB"] += await beside(
                session, "search_panes", {"pattern": pattern, "regex": True}
            )
        box.cmd("set", "-g", "history-limit", "10000")
        scroll = box.shell_pane("bash", width=200, height=40)
        base = await session.call("wait_for_text", {"pane_id": scroll.pane_id, "timeout": 0})
        cursor = (base.structured_content or {})["cursor"]
        scroll.run("python3 -c \"print(('a' * 199 + '\\n') * 5000, end='')\"")
        for pattern in HOSTILE_PATTERNS.values():
            args = {"pane_id": scroll.pane_id, "patterns": [pattern], "regex": True,
                    "cursor": cursor, "timeout": 0, "max_lines": 5000}
            laps["5000 lines"] += await beside(session, "wait_for_text", args)
    return laps


async def measure() -> list[Row]:
    outcomes, hold, largest = compile_costs()
    refused = sum(1 for o in outcomes.values() if o.startswith("refused"))
    rows = [
        Row(
            f"hostile patterns ({len(outcomes)}, <= 4 KB): refused / legal",
            f"{refused} / {len(outcomes) - refused} (largest legal: {largest} instructions)",
            PEER, detail=outcomes,
        ),
        Row("longest single RE2 compile (GIL held)", ms(hold), PEER, "", "", "-"),
    ]
    laps = await latencies()
    for where, series in laps.items():
        worst = max(series)
        rows.append(Row(
            f"list_sessions beside hostile patterns, {where}: max (median) of "
            f"{len(series)}",
            f"{ms(worst)} ({ms(median(series))})", PEER, "", "<= 50 ms", met(worst <= BOUND),
            {"laps": series},
        ))
    return rows

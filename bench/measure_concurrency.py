"""Concurrency: 200 concurrent 6-second waits on ONE stdio connection, and a quick call.

Run twice: ``wait_for_channel`` on 200 channels nobody signals (one tmux ``wait-for``
client per wait on both servers), and ``wait_for_text`` for 200 texts that never come
(muxport: one shared control-mode client per session; the peer polls capture-pane);
each wait ends by its own 6 s timeout, and the peer runs the same tool. Total wall time
runs from the first wait sent to the last answer. The quick call is ``list_sessions``,
sent every 100 ms while the waits are in flight; its latencies give the p99 (with ~60
samples, that is the slowest one). Server CPU is the server process's own user+system
time over the run. A hard 90 s cap bounds the run.
"""

from __future__ import annotations

import os
import time
from typing import Any

import anyio

from bench.harness import (
    SIDES,
    Row,
    Session,
    connect,
    cpu_seconds,
    median,
    met,
    missing,
    ms,
    pct,
    ratio,
    secs,
    tmux_box,
    tools_available,
)

WAITS = 200
WAIT_SECONDS = 6
TICK = 0.1
CAP = 90


def wait_call(tool: str, n: int, pane: str) -> dict[str, Any]:
    if tool == "wait_for_channel":
        return {"channel": f"bench-never-{n}", "timeout": WAIT_SECONDS}
    return {"pane_id": pane, "patterns": [f"never-printed-{n}"], "timeout": WAIT_SECONDS}


async def run(session: Session, tool: str, pane: str) -> dict[str, Any]:
    quick: list[float] = []
    when: list[float] = []
    began = time.perf_counter()
    ends: list[float] = []
    errors = 0
    finished = anyio.Event()

    async def one(n: int) -> None:
        nonlocal errors
        result = await session.call(tool, wait_call(tool, n, pane))
        errors += bool(result.is_error)
        ends.append(time.perf_counter())
        if len(ends) == WAITS:
            finished.set()

    async def ticker() -> None:
        while not finished.is_set():
            start = time.perf_counter()
            await session.call("list_sessions", {})
            quick.append(time.perf_counter() - start)
            when.append(round(start - began, 2))
            await anyio.sleep(max(0.0, TICK - (time.perf_counter() - start)))

    cpu, client_cpu = cpu_seconds(session.pid), time.process_time()
    start = time.perf_counter()
    with anyio.move_on_after(CAP) as scope:
        async with anyio.create_task_group() as group:
            for n in range(WAITS):
                group.start_soon(one, n)
            group.start_soon(ticker)
    wall = (max(ends) if ends else time.perf_counter()) - start
    return {
        "wall": wall,
        "server_cpu": cpu_seconds(session.pid) - cpu,
        "client_cpu": time.process_time() - client_cpu,
        "load": os.getloadavg()[0],
        "capped": scope.cancelled_caught,
        "answered": len(ends),
        "errors": errors,
        "quick": quick,
        "tool": tool,
        "slowest": sorted(zip(quick, when, strict=True), reverse=True)[:5],
    }


def wall(r: dict[str, Any]) -> str:
    extra = f", capped at {CAP} s" if r["capped"] else ""
    return (
        f"{secs(r['wall'])} ({r['answered']} answered{extra}; server CPU {r['server_cpu']:.2f} s)"
    )


def quick(r: dict[str, Any]) -> str:
    return f"{ms(pct(r['quick'], 99))} ({ms(median(r['quick']))}; {len(r['quick'])})"


async def measure() -> list[Row]:
    rows: list[Row] = []
    for tool in ("wait_for_channel", "wait_for_text"):
        res: dict[str, dict[str, Any]] = {}
        for side in SIDES:
            async with tmux_box() as (box, pane), connect(side, box) as session:
                if tool not in await tools_available(session):
                    break
                await session.call("list_sessions", {})
                res[side] = await run(session, tool, pane.pane_id)
        if "muxport" not in res:
            rows.append(Row(f"200 concurrent 6 s {tool}: total wall", missing(tool), "-"))
            continue
        m, p = res["muxport"], res["peer"]
        m99, p99 = pct(m["quick"], 99), pct(p["quick"], 99)
        rows += [
            Row(
                f"200 concurrent 6 s {tool}: total wall",
                wall(m),
                wall(p),
                ratio(m["wall"], p["wall"]),
                "<= 6.5 s",
                met(m["wall"] <= 6.5 and m["answered"] == WAITS),
                {"muxport": m, "peer": p},
            ),
            Row(
                "  list_sessions every 100 ms meanwhile: p99 (median; n)",
                quick(m),
                quick(p),
                ratio(m99, p99),
                "p99 <= 50 ms",
                met(m99 <= 0.050),
            ),
        ]
    return rows

"""Start of the process to the ``initialize`` answer (initialize written at once, as Codex
does) and to the ``tools/list`` answer, resident memory, and the size of the surface.

Each start is a fresh process (no warm caches beyond the OS page cache, the same for
both). RSS is VmRSS of the server process right after its ``tools/list`` answer.
``tools/list`` bytes: the result as compact JSON (both normalised the same way); the
part a model sees is each tool's name, description and input schema.
"""

from __future__ import annotations

import json
import select
import subprocess
import time
from typing import Any

import anyio

from bench.harness import (
    Row,
    connect,
    median,
    met,
    ratio,
    secs,
    server_params,
    status_field,
    tmux_box,
)

RUNS = 10
ALL_FOUR = "inspect,manage,execute,teardown"


def surface_bytes(listed: Any) -> tuple[int, int, int]:
    """(tool count, whole tools/list bytes, bytes a model sees)."""
    whole = json.dumps(
        listed.model_dump(mode="json", by_alias=True, exclude_none=True), separators=(",", ":")
    )
    seen = sum(  # as a model receives them: one JSON object per tool
        len(json.dumps({"name": t.name, "description": t.description or "",
                        "inputSchema": t.input_schema},
                       separators=(",", ":"), ensure_ascii=False).encode())
        for t in listed.tools
    )
    return len(listed.tools), len(whole.encode()), seen


INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"}}}).encode() + b"\n"


def initialize_time(side: str, box: Any, limit: float = 30.0) -> float:
    """Seconds from starting ``side`` (initialize already written to its stdin, as a client
    that does not wait does) to the first byte of the initialize answer on its stdout."""
    params = server_params(side, box.socket_path)
    start = time.perf_counter()
    process = subprocess.Popen([params.command, *params.args], env=params.env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(INITIALIZE)
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], limit)
        return time.perf_counter() - start if ready else float("nan")
    finally:
        process.kill()
        process.wait()


async def one_start(side: str, box: Any) -> tuple[float, int, Any]:
    start = time.perf_counter()
    async with connect(side, box) as session:
        listed = await session.client.list_tools()
        elapsed = time.perf_counter() - start
        rss = status_field(session.pid, "VmRSS") if session.pid > 0 else -1
    return elapsed, rss, listed


async def measure() -> list[Row]:
    times: dict[str, list[float]] = {"muxport": [], "peer": []}
    inits: dict[str, list[float]] = {"muxport": [], "peer": []}
    rss: dict[str, list[int]] = {"muxport": [], "peer": []}
    listing: dict[str, Any] = {}
    async with tmux_box() as (box, _pane):
        for _ in range(RUNS):  # interleaved so that background load hits both alike
            for side in ("muxport", "peer"):
                inits[side].append(await anyio.to_thread.run_sync(initialize_time, side, box))
                elapsed, kb, listed = await one_start(side, box)
                times[side].append(elapsed)
                rss[side].append(kb)
                listing[side] = listed
        async with connect("muxport", box, {"LIBTMUX_TOOLSETS": ALL_FOUR}) as session:
            everything = await session.client.list_tools()
    tm, tp = median(times["muxport"]), median(times["peer"])
    (na, wa, sa) = surface_bytes(everything)
    rm, rp = median(rss["muxport"]) / 1024, median(rss["peer"]) / 1024
    (nm, wm, sm), (np_, wp, sp) = surface_bytes(listing["muxport"]), surface_bytes(listing["peer"])
    im, ip = median(inits["muxport"]), median(inits["peer"])
    return [
        Row(
            "start -> initialize answer (median of 10)",
            secs(im),
            secs(ip),
            ratio(im, ip),
            "<= 0.3 s",
            met(im <= 0.3),
            {"muxport": inits["muxport"], "peer": inits["peer"]},
        ),
        Row(
            "start -> tools/list (median of 10)",
            secs(tm),
            secs(tp),
            ratio(tm, tp),
            "<= 1.5 s and <= 0.55x",
            met(tm <= 1.5 and tm <= 0.55 * tp),
            {"muxport": times["muxport"], "peer": times["peer"]},
        ),
        Row(
            "resident memory after tools/list",
            f"{rm:.1f} MB",
            f"{rp:.1f} MB",
            ratio(rm, rp),
            "<= 0.55x",
            met(rm <= 0.55 * rp),
        ),
        Row(
            f"(d) tools/list bytes, default surface ({nm} vs {np_} tools)",
            f"{wm:,} B",
            f"{wp:,} B",
            ratio(wm, wp),
            "",
            "-",
            {"muxport_tools": nm, "peer_tools": np_},
        ),
        Row(
            "(d) part a model sees (names, descriptions, input schemas)",
            f"{sm:,} B",
            f"{sp:,} B",
            ratio(sm, sp),
            "",
            "-",
        ),
        Row(
            f"(d) tools/list bytes, all four toolsets ({na}) vs the peer's {np_}",
            f"{wa:,} B",
            f"{wp:,} B",
            ratio(wa, wp),
            "<= 60,000 B",
            met(wa <= 60_000),
        ),
        Row(
            "(d) part a model sees, all four toolsets",
            f"{sa:,} B",
            f"{sp:,} B",
            ratio(sa, sp),
            "<= 22,000 B",
            met(sa <= 22_000),
        ),
    ]

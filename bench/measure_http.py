"""``muxport --http`` beside muxport over stdio (docs/http.md): ``list_sessions`` and
``run_shell_command "true"`` round trips, then 100 concurrent waits over HTTP with the
quick call's p99 meanwhile. The peer column here is muxport over stdio, not libtmux-mcp.

Targets (issue 34): ``list_sessions`` over HTTP within 2x of stdio at the median; 100
concurrent waits answered within their timeout + 0.5 s.
"""

from __future__ import annotations

import time

import anyio
from muxport.testing.http import http_client, serving_http

from bench.harness import Row, Session, connect, median, met, ms, pct, ratio, secs, tmux_box

CALLS = 100
RUNS = 30
WARMUP = 5
WAITS = 100
WAIT_TIMEOUT = 3.0
LIMIT = 240


async def laps(call: object, n: int) -> list[float]:
    taken: list[float] = []
    for i in range(WARMUP + n):
        start = time.perf_counter()
        result = await call()  # type: ignore[operator]
        if result.is_error:
            raise RuntimeError(f"call failed: {result.content}")
        if i >= WARMUP:
            taken.append(time.perf_counter() - start)
    return taken


async def concurrent_waits(url: str, token: str) -> tuple[list[float], list[float]]:
    """100 waits that time out after 3 s, on 10 clients; list_sessions on another meanwhile."""
    waited: list[float] = []
    quick: list[float] = []

    async def waits(client: object, count: int) -> None:
        async def one(index: int) -> None:
            start = time.perf_counter()
            await client.call_tool("wait_for_channel", {  # type: ignore[attr-defined]
                "channel": f"bench-http-{index}", "timeout": WAIT_TIMEOUT})
            waited.append(time.perf_counter() - start)

        async with anyio.create_task_group() as group:
            for index in range(count):
                group.start_soon(one, index)

    async with http_client(url, token) as observer:
        async with anyio.create_task_group() as outer:
            for _ in range(10):
                async def client_waits() -> None:
                    async with http_client(url, token) as client:
                        await waits(client, WAITS // 10)

                outer.start_soon(client_waits)
            await anyio.sleep(0.5)  # the waits are in flight
            while len(waited) < WAITS:
                start = time.perf_counter()
                await observer.call_tool("list_sessions", {})
                quick.append(time.perf_counter() - start)
    return waited, quick


async def measure() -> list[Row]:
    async with tmux_box() as (box, pane):
        with serving_http(box.socket_path) as served:
            async with connect("muxport", box) as stdio, \
                    http_client(served.url, served.token) as web:
                over = Session(web, served.process.pid, "http")
                stdio_ls = await laps(lambda: stdio.call("list_sessions", {}), CALLS)
                http_ls = await laps(lambda: over.call("list_sessions", {}), CALLS)
                run = {"pane_id": pane.pane_id, "command": "true"}
                stdio_run = await laps(lambda: stdio.call("run_shell_command", run), RUNS)
                http_run = await laps(lambda: over.call("run_shell_command", run), RUNS)
            waited, quick = await concurrent_waits(served.url, served.token)
    h, s = median(http_ls), median(stdio_ls)
    hr, sr = median(http_run), median(stdio_run)
    slowest = max(waited)
    return [
        Row("http: list_sessions median (peer column: stdio)", ms(h), ms(s), ratio(h, s),
            "<= 2x stdio", met(h <= 2 * s)),
        Row("http: run 'true' median (peer column: stdio)", ms(hr), ms(sr), ratio(hr, sr),
            "", "-"),
        Row(f"http: {WAITS} concurrent {WAIT_TIMEOUT:g} s waits, slowest answer",
            secs(slowest), "-", "", f"<= {WAIT_TIMEOUT + 0.5:g} s",
            met(slowest <= WAIT_TIMEOUT + 0.5), detail={"answered": len(waited)}),
        Row("http: list_sessions p99 during the waits", ms(pct(quick, 99)), "-", "", "", "-",
            detail={"calls": len(quick), "median": median(quick)}),
    ]

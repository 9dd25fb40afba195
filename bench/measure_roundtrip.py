"""``list_sessions`` round trip over stdio: median and p95 of 200 calls after 5 warm-up calls.

The time is the client's: request written, answer read and validated by the SDK. Both
servers run at once and the calls alternate between them.
"""

from __future__ import annotations

import time

from bench.harness import SIDES, Row, both, median, met, ms, pct, ratio

CALLS = 200
WARMUP = 5


async def series() -> dict[str, list[float]]:
    laps: dict[str, list[float]] = {side: [] for side in SIDES}
    async with both() as sides:
        for n in range(WARMUP + CALLS):
            for side in SIDES:  # alternating: background load hits both alike
                session = sides[side][2]
                start = time.perf_counter()
                result = await session.call("list_sessions", {})
                lap = time.perf_counter() - start
                if result.is_error:
                    raise RuntimeError(f"{side} list_sessions failed: {result.content}")
                if n >= WARMUP:
                    laps[side].append(lap)
    return laps


async def measure() -> list[Row]:
    laps = await series()
    m, p = median(laps["muxport"]), median(laps["peer"])
    m95, p95 = pct(laps["muxport"], 95), pct(laps["peer"], 95)
    return [
        Row(
            "list_sessions round trip, median of 200",
            ms(m),
            ms(p),
            ratio(m, p),
            "<= 3 ms",
            met(m <= 0.003),
        ),
        Row("list_sessions round trip, p95 of 200", ms(m95), ms(p95), ratio(m95, p95), "", "-"),
    ]

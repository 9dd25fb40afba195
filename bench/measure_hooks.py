"""The cost of the read-only hook check: one read tool call with and without it.

A read-only tool's tmux invocation is preceded by one ``show-hooks`` invocation
(``core/src/muxport/hookguard.py``). This times the tool function itself, in process,
on a private tmux server, alternating checked and unchecked calls (median of 200
each, after 5 warm-up calls), for ``list_sessions`` and ``capture_pane``. The peer
makes no such check (tmux runs its hooks), so its column says so.
"""

from __future__ import annotations

import time
from typing import Any

from muxport import ToolContext
from muxport._internal.hookguard import guarding
from muxport.testing import in_process_client

from bench.harness import Row, median, ms, tmux_box

CALLS = 200
WARMUP = 5
PEER = "no check: tmux runs its hooks"


async def series(app: Any, name: str, arguments: dict[str, Any]) -> dict[bool, list[float]]:
    spec = app.surface.specs[name]
    parsed = app.surface.args[name].model_validate(arguments)
    laps: dict[bool, list[float]] = {True: [], False: []}
    for n in range(WARMUP + CALLS):
        for checked in (True, False):  # alternating: background load hits both alike
            ctx = ToolContext(name, app.server.services)
            start = time.perf_counter()
            with guarding(name if checked else None):
                await spec.func(ctx, parsed)
            if n >= WARMUP:
                laps[checked].append(time.perf_counter() - start)
    return laps


async def measure() -> list[Row]:
    rows = []
    async with tmux_box() as (box, pane), in_process_client(
        box.socket_path, toolsets=["inspect"]
    ) as (_client, app):
        for name, arguments in (
            ("list_sessions", {}),
            ("capture_pane", {"pane_id": pane.pane_id}),
        ):
            laps = await series(app, name, arguments)
            with_check, without = median(laps[True]), median(laps[False])
            rows.append(
                Row(
                    f"hook check on {name}: checked (unchecked), median of 200",
                    f"{ms(with_check)} ({ms(without)}; check +{ms(with_check - without)})",
                    PEER,
                    f"{with_check / without:.2f}" if without else "-",
                    "",
                    "-",
                    {"checked": laps[True], "unchecked": laps[False]},
                )
            )
    return rows

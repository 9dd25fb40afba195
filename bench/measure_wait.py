"""``wait_for_text`` detection latency: from the moment text is printed to the answer.

The pane runs a loop that prints each line written to a FIFO. For each sample the
harness starts ``wait_for_text`` for a fresh marker, lets the wait settle for 250 ms,
records the time and writes the marker into the FIFO (the pane prints it within a
fraction of a millisecond); the latency is the answer's arrival minus that time.
Median of 50 after 2 warm-up samples; both servers use their default poll settings.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import anyio
from muxport.testing.server import ShellPane, TmuxServer

from bench.harness import (
    SIDES,
    Row,
    Session,
    both,
    data_of,
    median,
    met,
    missing,
    ms,
    pct,
    ratio,
    tools_available,
)

SAMPLES = 50
WARMUP = 2
SETTLE = 0.25


def wait_args(side: str, pane: str, marker: str) -> dict[str, Any]:
    return {"pane_id": pane, "patterns": [marker], "timeout": 10}


def matched(side: str, data: dict[str, Any]) -> bool:
    return data.get("outcome") == "matched" or (side == "peer" and data.get("found") is True)


async def sample(session: Session, pane: str, fifo: int, marker: str) -> float:
    done: dict[str, float] = {}
    answer: dict[str, Any] = {}

    async def call() -> None:
        result = await session.call("wait_for_text", wait_args(session.side, pane, marker))
        done["at"] = time.perf_counter()
        answer.update(data_of(result))

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        await anyio.sleep(SETTLE)
        printed = time.perf_counter()
        os.write(fifo, f"{marker}\n".encode())
    if not matched(session.side, answer):
        raise RuntimeError(f"{session.side} wait_for_text did not match {marker}: {answer}")
    return done["at"] - printed


def printer(box: TmuxServer, pane: ShellPane) -> int:
    """Make ``pane`` print every line written to a FIFO; the FIFO's write end."""
    path = Path(box.dir) / "marks.fifo"
    os.mkfifo(path)
    pane.type(f"exec 3<>{path}; while IFS= read -r l <&3; do printf '%s\\n' \"$l\"; done")
    return os.open(path, os.O_WRONLY)


async def series() -> dict[str, list[float] | None]:
    """Both servers at once; samples alternate between them so that load hits both alike."""
    laps: dict[str, list[float]] = {}
    async with both() as sides:
        fifos = {}
        for side in SIDES:
            box, pane, session = sides[side]
            if "wait_for_text" in await tools_available(session):
                fifos[side] = printer(box, pane)
                laps[side] = []
        try:
            for n in range(WARMUP + SAMPLES):
                for side, fifo in fifos.items():
                    _box, pane, session = sides[side]
                    lap = await sample(session, pane.pane_id, fifo, f"MARK_{side}_{n}_")
                    if n >= WARMUP:
                        laps[side].append(lap)
        finally:
            for fifo in fifos.values():
                os.close(fifo)
    return {side: laps.get(side) for side in SIDES}


async def measure() -> list[Row]:
    laps = await series()
    mx, pe = laps["muxport"], laps["peer"] or []
    m, p = median(mx or []), median(pe)
    return [
        Row(
            "wait_for_text: printed -> answer, median of 50 (p95)",
            f"{ms(m)} ({ms(pct(mx, 95))})" if mx else missing("wait_for_text"),
            f"{ms(p)} ({ms(pct(pe, 95))})",
            ratio(m, p) if mx else "-",
            "<= 20 ms",
            met(m <= 0.020) if mx else "-",
        )
    ]

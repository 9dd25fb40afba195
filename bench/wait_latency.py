"""Median detection latency of wait_for_text: text printed -> answer received, over stdio.

Standalone: ``.venv/bin/python bench/wait_latency.py [trials]``. It starts a private
tmux server (the test kit's ``TmuxServer``: a private socket in a private directory),
a pane running ``cat``, and the INSTALLED ``muxport`` launcher over real stdio. Each
trial calls ``wait_for_text`` for a fresh marker; when the server reports the wait
armed (its first progress notification), the marker is written straight to the
pane's terminal, and the clock runs from that write to the answer's arrival.
"""

from __future__ import annotations

import statistics
import sys
import time
import uuid
from typing import Any

import anyio
from muxport.testing.clients import stdio_client
from muxport.testing.server import TmuxServer

TRIALS = 50
BOUND = 30.0


async def one_trial(client: Any, pane_id: str, terminal: Any, marker: str) -> float:
    armed = anyio.Event()
    printed: list[float] = []
    answer: dict[str, Any] = {}

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        armed.set()

    async def call() -> None:
        result = await client.call_tool(
            "wait_for_text",
            {"pane_id": pane_id, "patterns": [marker], "timeout": 20},
            progress_callback=progress,
        )
        answer["at"] = time.perf_counter()
        answer["data"] = result.structured_content

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await armed.wait()
            # Written to the pane's terminal, the marker is output as if its program printed it.
            printed.append(time.perf_counter())
            terminal.write(marker + "\n")
            terminal.flush()
    if answer["data"]["outcome"] != "matched":
        raise RuntimeError(f"trial for {marker} ended {answer['data']['outcome']}")
    return float(answer["at"] - printed[0])


async def measure(trials: int = TRIALS) -> list[float]:
    """Seconds from print to answer, one per trial."""
    server = TmuxServer()
    try:
        out = server.cmd(
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_id} #{pane_tty}",
            "-x",
            "120",
            "-y",
            "30",
            "cat",
        )
        pane_id, tty = out.split()
        terminal = open(tty, "w")  # noqa: ASYNC230 (a pty opens at once; kept for all trials)
        env = {"LIBTMUX_SOCKET_PATH": server.socket_path, "LIBTMUX_TOOLSETS": "inspect"}
        try:
            async with stdio_client(env) as client:
                return [
                    await one_trial(client, pane_id, terminal, f"MARK-{n}-{uuid.uuid4().hex[:8]}")
                    for n in range(trials)
                ]
        finally:
            terminal.close()
    finally:
        server.kill()


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "trials": float(len(samples)),
        "median_ms": statistics.median(samples) * 1000,
        "p90_ms": ordered[int(0.9 * (len(ordered) - 1))] * 1000,
        "min_ms": ordered[0] * 1000,
        "max_ms": ordered[-1] * 1000,
    }


def main(trials: int = TRIALS) -> dict[str, float]:
    """Run the trials, print the median (and spread), return the numbers."""
    stats = summary(anyio.run(measure, trials))
    print(
        f"wait_for_text detection latency over {int(stats['trials'])} trials: "
        f"median {stats['median_ms']:.1f} ms (p90 {stats['p90_ms']:.1f}, "
        f"min {stats['min_ms']:.1f}, max {stats['max_ms']:.1f})"
    )
    return stats


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else TRIALS)

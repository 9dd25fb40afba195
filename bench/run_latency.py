"""Median round trip of ``run_shell_command "true"`` over real stdio (50 runs, one bash pane).

Run: ``.venv/bin/python -m bench.run_latency`` (from the repository root). It starts a
private tmux server (never the default socket), the installed launcher with the
execute toolset, and prints the median, the 90th percentile and the worst lap.
"""

from __future__ import annotations

import statistics
import time

import anyio
from muxport.testing import TmuxServer, stdio_client

RUNS = 50
WARMUP = 3


async def laps(runs: int = RUNS) -> list[float]:
    server = TmuxServer()
    try:
        pane = server.shell_pane("bash")
        env = {"LIBTMUX_SOCKET_PATH": server.socket_path, "LIBTMUX_TOOLSETS": "execute"}
        args = {"pane_id": pane.pane_id, "command": "true", "timeout": 30}
        async with stdio_client(env) as client:
            for _ in range(WARMUP):
                await client.call_tool("run_shell_command", args)
            out: list[float] = []
            for _ in range(runs):
                start = time.perf_counter()
                result = await client.call_tool("run_shell_command", args)
                out.append(time.perf_counter() - start)
                data = result.structured_content or {}
                if result.is_error or data.get("exit_status") != 0:
                    raise RuntimeError(f"run_shell_command true failed: {result.content}")
        return out
    finally:
        server.kill()


def main() -> None:
    measured = sorted(anyio.run(laps))
    p90 = measured[int(len(measured) * 0.9) - 1]
    print(
        f"run_shell_command 'true' over stdio, {len(measured)} runs: "
        f"median {statistics.median(measured) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, "
        f"max {measured[-1] * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()

"""The transport alone, side by side: one tmux invocation over the socket and forked.

Diagnostic (``.venv/bin/python -m bench.floor [N]``): ``Transport.run(("list-sessions",))``
against a private tmux server, alternating between the socket transport and the forked
client (``MUXPORT_TRANSPORT=fork``) so that load hits both alike; medians and p95 of N
(default 300) each, and the ratio. No MCP, no muxport server: what is left of a round trip
above this is the SDK's and muxport's own.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import anyio
from muxport._internal.transport import Transport
from muxport.testing.server import TmuxServer


async def main(samples: int) -> None:
    box = TmuxServer()
    try:
        box.cmd("new-session", "-d", "-s", "floor")
        os.environ.pop("MUXPORT_TRANSPORT", None)
        wired = Transport(box.binary, box.socket_path)
        os.environ["MUXPORT_TRANSPORT"] = "fork"
        forked = Transport(box.binary, box.socket_path)
        del os.environ["MUXPORT_TRANSPORT"]
        laps: dict[str, list[float]] = {"socket": [], "fork": []}
        for n in range(samples + 10):
            for name, tmux in (("socket", wired), ("fork", forked)):
                begun = time.perf_counter()
                await tmux.run(("list-sessions",))
                if n >= 10:  # warm-up
                    laps[name].append(time.perf_counter() - begun)
        for name, got in laps.items():
            got.sort()
            print(f"{name:6} median {statistics.median(got) * 1000:.2f} ms, "
                  f"p95 {got[int(len(got) * 0.95)] * 1000:.2f} ms")
        ratio = statistics.median(laps["socket"]) / statistics.median(laps["fork"])
        print(f"socket/fork {ratio:.2f}; load average {os.getloadavg()[0]:.1f}")
        await wired.aclose()
        await forked.aclose()
    finally:
        box.kill()


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 300)

"""Run every measurement, print one table, and keep the raw figures in bench/results/latest.json."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
import traceback
from dataclasses import asdict
from typing import Any

import anyio

from bench import (
    measure_cancel,
    measure_concurrency,
    measure_economy,
    measure_hooks,
    measure_http,
    measure_plumbing,
    measure_reach,
    measure_regex,
    measure_roundtrip,
    measure_run,
    measure_ssh,
    measure_startup,
    measure_versions,
    measure_wait,
)
from bench.harness import BENCH, PEER, Row

MODULES = (
    measure_startup,
    measure_roundtrip,
    measure_run,
    measure_reach,
    measure_ssh,
    measure_wait,
    measure_concurrency,
    measure_cancel,
    measure_economy,
    measure_hooks,
    measure_plumbing,
    measure_regex,
    measure_versions,
    measure_http,
)
MODULE_LIMIT = 150  # seconds: a hung measurement becomes a "failed" row, the run goes on
# a module that needs longer (measure_versions: seven tmux versions) says so in its LIMIT
HEAD = ("measurement", "muxport", "peer (libtmux-mcp)", "ratio", "target", "met?")


def machine() -> dict[str, Any]:
    mem = next(line for line in open("/proc/meminfo") if line.startswith("MemTotal")).split()[1]
    peer = subprocess.run(
        [PEER.replace("libtmux-mcp", "pip"), "show", "libtmux-mcp"], capture_output=True, text=True
    )
    version = next(
        (line.split()[1] for line in peer.stdout.splitlines() if line.startswith("Version")), "?"
    )
    return {
        "cores": os.cpu_count(),
        "mem_gib": round(int(mem) / 1024 / 1024, 1),
        "python": platform.python_version(),
        "tmux": subprocess.run(["tmux", "-V"], capture_output=True, text=True).stdout.strip(),
        "peer": f"libtmux-mcp {version}",
        "load": os.getloadavg(),
    }


def table(rows: list[Row]) -> str:
    cells = [HEAD] + [(r.name, r.muxport, r.peer, r.ratio, r.target, r.met) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEAD))]
    lines = [
        "| " + " | ".join(c[i].ljust(widths[i]) for i in range(len(HEAD))) + " |" for c in cells
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


async def main(only: list[str]) -> int:
    info = machine()
    print(
        f"machine: {info['cores']} cores, {info['mem_gib']} GiB, Python {info['python']}, "
        f"{info['tmux']}; peer {info['peer']}",
        flush=True,
    )
    rows: list[Row] = []
    started = time.perf_counter()
    for module in MODULES:
        name = module.__name__.rsplit(".", 1)[1]
        if only and name.removeprefix("measure_") not in only:
            continue
        t0, load = time.perf_counter(), os.getloadavg()[0]
        try:
            with anyio.fail_after(getattr(module, "LIMIT", MODULE_LIMIT)):
                got = await module.measure()
        except Exception as exc:  # one broken measurement must not hide the others
            traceback.print_exc()
            got = [Row(name, f"failed: {type(exc).__name__}: {str(exc)[:80]}", "-")]
        for row in got:
            row.detail["load_at_start"] = round(load, 2)
        rows += got
        took = time.perf_counter() - t0
        print(
            f"  {name}: {took:.1f} s (load average {load:.1f} at start)",
            file=sys.stderr,
            flush=True,
        )
    total = time.perf_counter() - started
    print(table(rows))
    print(
        f"total {total:.0f} s; load average now {os.getloadavg()[0]:.1f} "
        f"(on {os.cpu_count()} cores; above that, processes wait for a CPU)"
    )
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "latest.json").write_text(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d %H:%M"),
                "machine": info,
                "seconds": total,
                "rows": [asdict(r) for r in rows],
            },
            indent=1,
            default=str,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1:]))

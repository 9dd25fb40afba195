"""The soak: 4 launchers, 12 panes (bash, zsh, dash), mixed load for 5 minutes; one table.

    .venv/bin/python -m bench.soak                      # tmux from PATH, 300 s, once
    .venv/bin/python -m bench.soak --tmux /root/.cache/muxport-tmux/3.7c/bin/tmux
    .venv/bin/python -m bench.soak --tmux /tmp/tmux-debug/3.3a/bin/tmux \
        --seconds 60 --runs 5 --cores

The load is the reliability suite's (tests/reliability/soak_kit.py; what it does and why:
docs/reliability.md, "Soak"). With ``--cores`` a crashed tmux server leaves a core file and
its backtrace is printed (gdb), for the tmux 3.3a crash of docs/tmux-facts.md.
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
from muxport.testing import TmuxServer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "reliability"))  # the soak's load is the suite's
from soak_kit import Report, Soak  # noqa: E402

HEAD = ("tmux", "seconds", "calls", "errors", "crashes", "RSS start -> end (MiB)",
        "fds start -> end", "clients left")


def row(report: Report) -> tuple[str, ...]:
    mib = ", ".join(f"{s / 2**20:.1f}->{e / 2**20:.1f}" for s, e in report.rss)
    fds = ", ".join(f"{s}->{e}" for s, e in report.fds)
    crash = "0" if not report.crashed else f"1 (after {report.crashed_after or 0:.1f} s)"
    left = len(report.clients_left) + len(report.held_by)
    errors = f"{len(report.errors)} (+{len(report.wrong)} wrong answers)"
    return (report.tmux, f"{report.seconds:.0f}", str(sum(report.calls.values())), errors,
            crash, mib, fds, str(left))


def table(rows: list[tuple[str, ...]]) -> str:
    cells = [HEAD, *rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEAD))]
    lines = ["| " + " | ".join(c[i].ljust(widths[i]) for i in range(len(HEAD))) + " |"
             for c in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def backtraces(binary: str, where: Path) -> list[str]:
    """The backtrace of each core file a crashed server left in its working directory."""
    found = []
    for core in sorted(glob.glob(str(where / "core*"))):
        # which client was written to, how far it had identified, which one detached
        peek = ["frame 0", "p c->control_state", "p/x c->flags", "p c->name", "p c->pid",
                "p c->session", "up", "info args"]
        out = subprocess.run(["gdb", "-batch", "-ex", "bt",
                              *[a for p in peek for a in ("-ex", p)], binary, core],
                             capture_output=True, text=True, timeout=120)
        found.append("\n".join(line for line in out.stdout.splitlines()
                               if line.startswith(("#", "$", "Program terminated", "cc", "s ="))))
    return found


def soak_once(binary: str, seconds: float, cores: bool) -> tuple[Report, list[str]]:
    where = Path(tempfile.mkdtemp(prefix="muxport-soak-"))
    here = os.getcwd()
    os.chdir(where)  # the tmux server keeps the working directory it started in: cores go here
    try:
        if cores:
            resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)
        server = TmuxServer(binary)
        try:
            report = anyio.run(Soak(server).run, seconds)
        finally:
            server.kill()
        return report, backtraces(binary, where) if report.crashed and cores else []
    finally:
        os.chdir(here)
        shutil.rmtree(where, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tmux", default=shutil.which("tmux") or "tmux", help="tmux binary")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--cores", action="store_true", help="keep and read core dumps")
    args = parser.parse_args()
    os.environ.pop("TMUX", None)
    rows, crashes = [], 0
    for n in range(args.runs):
        report, traces = soak_once(args.tmux, args.seconds, args.cores)
        rows.append(row(report))
        crashes += report.crashed
        print(f"run {n + 1}/{args.runs}: {'CRASHED' if report.crashed else 'ok'}; calls "
              f"{dict(report.calls)}", file=sys.stderr, flush=True)
        for line in report.errors[:5] + report.wrong[:5]:
            print(f"  {line[:300]}", file=sys.stderr)
        for trace in traces:
            print(trace, file=sys.stderr)
    print(table(rows))
    print(f"{crashes} crash(es) in {args.runs} run(s) of {args.seconds:.0f} s "
          f"(MUXPORT_TRANSPORT={os.environ.get('MUXPORT_TRANSPORT', 'default')})")
    return 1 if crashes or any(r[3] != "0 (+0 wrong answers)" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

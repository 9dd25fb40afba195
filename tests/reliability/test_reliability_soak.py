"""A short soak under mixed load (docs/reliability.md, "Soak"): 4 launchers over real stdio,
12 panes in bash, zsh and dash, runs, waits, reads, send_keys and session and window churn
at once for SOAK seconds, through a stopped server and a moved socket (soak_faults.py).
The tmux server must survive (issue 18: tmux 3.3a segfaulted,
docs/tmux-facts.md), every answer must be right, and the launchers' memory and open files,
and the tmux clients, must come back to where they were.

The tmux binary is the one on PATH (``PATH=.../3.7c/bin:$PATH pytest ...`` for another
version); the 5-minute soak with a table is ``python -m bench.soak``.
"""

from __future__ import annotations

import os
import resource
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from muxport.testing import TmuxServer
from soak_kit import LAUNCHERS, SHELLS, Soak

pytestmark = [pytest.mark.slow, pytest.mark.timeout(200)]
SOAK = float(os.environ.get("MUXPORT_SOAK_SECONDS", "50"))
RSS_GROWTH = 32 << 20  # bytes a launcher may grow by over the soak (allocator slack)
FD_SLACK = 0  # open files once idle again: none more than before the load


@pytest.fixture
def dumping_server() -> Iterator[TmuxServer]:
    """The kit's tmux server (the binary on PATH, as ``tmux_server``'s) that may write a core
    file, so that a crash under the load (tmux 3.7c was seen gone once in CI) can be told
    from an exit and read with gdb."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    limit = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (limit[1], limit[1]))
    try:
        server = TmuxServer()
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, limit)
    try:
        yield server
    finally:
        server.kill()


def cores(server: TmuxServer) -> str:
    """Where a crashed server's core file went (the kernel's core_pattern; "core" names a
    file in the server's working directory, which is the test's)."""
    pattern = Path("/proc/sys/kernel/core_pattern").read_text().strip()
    found = sorted(str(p) for p in Path.cwd().glob("core*") if p.is_file())
    return f"core_pattern {pattern!r}, core files here: {found}"


async def test_mixed_load_soak(dumping_server, sandbox):
    tmux_server = dumping_server
    missing = [shell for shell in SHELLS if shutil.which(shell) is None]
    if missing:
        pytest.skip(f"not installed: {missing}")
    soak = Soak(tmux_server, faults=True)
    report = await soak.run(SOAK)
    assert soak.faults is not None
    print(f"\nsoak {report.tmux} {report.seconds:.0f}s: {sum(report.calls.values())} calls "
          f"{dict(report.calls)}; rss {report.rss}; fds {report.fds}; "
          f"connections {report.connections} held by {report.held_by}; "
          f"errors {len(report.errors)} {report.errors[:3]}; "
          f"wrong {len(report.wrong)} {report.wrong[:3]}; "
          f"faults {soak.faults.injected}, answered by {soak.faults.answered} calls")
    assert not report.crashed, (
        f"the tmux server died {report.crashed_after} s into the load (faults injected by "
        f"then: {soak.faults.injected}; {cores(tmux_server)})")
    assert soak.faults.injected == ["stopped", "socket moved"]
    assert report.errors == []
    assert report.wrong == []
    assert report.provoked == LAUNCHERS  # the deliberate bad pane id: not_found, each time
    for tool in ("run_shell_command", "wait_for_text", "wait_for_channel", "send_keys",
                 "create_session", "kill_session", "kill_window", "capture_pane"):
        assert report.calls[tool] > LAUNCHERS, (tool, report.calls)
    for start, end in report.rss:
        assert end - start < RSS_GROWTH, report.rss
    for start, end in report.fds:
        assert end <= start + FD_SLACK, report.fds
    assert report.clients_left == []
    assert report.held_by == []  # no client process still connected (ss)

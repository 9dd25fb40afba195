"""Leaks under load: 1,000 waits started and cancelled, then 500 short runs. The launcher's
threads and open files, the tmux clients and the tmux buffers return to where they were (the
worker threads load added, once the thread pool has ended them for being idle).
"""

# The suite observes files, /proc and tmux, which send no events: bounded polls are the wait.
# ruff: noqa: ASYNC109, ASYNC240

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from muxport.testing import eventually
from reliability_kit import STATS, children_named, threads_and_fds, tmux_children

pytestmark = pytest.mark.timeout(300)
WAITS = 1000
RUNS = 500
BATCH = 50


def snapshot(pid: int, server: Any) -> dict[str, Any]:
    threads, fds = threads_and_fds(pid)
    return {
        "threads": threads,
        "fds": fds,
        "clients": server.clients(),
        "buffers": server.buffers(),
        "tmux_children": len(tmux_children(pid)),
        "connections": server.connections(),  # tmux clients over the socket count here
    }


async def settled(
    pid: int, server: Any, baseline: dict[str, Any], timeout: float = 10.0
) -> dict[str, Any]:
    """The state once it matches ``baseline`` (bounded: reaping and idle threads take a moment)."""
    return await eventually(
        lambda: snapshot(pid, server), lambda now: now == baseline,
        within=timeout, every=0.05, last_on_timeout=True,
    )


# anyio's thread pool keeps a worker that load made until it has been idle this long, and
# ends it only when it next hands out work: so an idle pool is asked for work until then.
POOL_IDLE = 10.0


async def reaped(client: Any, pid: int, server: Any, baseline: dict[str, Any]) -> dict[str, Any]:
    """The state once the worker threads the load added have been idle ``POOL_IDLE`` and
    been ended: each cheap read makes the pool end the workers idle that long."""
    deadline = time.monotonic() + POOL_IDLE + 5
    while True:
        now = await settled(pid, server, baseline, timeout=1.0)
        if now == baseline or time.monotonic() > deadline:
            return now
        assert not (await client.call_tool("list_sessions", {})).is_error


async def test_waits_and_runs_leave_nothing_behind(
    stdio_client, shell_pane, tmux_server, sandbox, all_toolsets
):
    panes = [shell_pane("bash") for _ in range(4)]
    known = children_named("muxport")
    private = Path(tempfile.mkdtemp(prefix="mxr-l"))  # the launcher's TMPDIR: run files go here
    env = {"TMPDIR": str(private)}
    async with stdio_client(toolsets=all_toolsets, env=env) as client:
        (pid,) = children_named("muxport") - known
        names = {t.name for t in (await client.list_tools()).tools}
        needed = {"wait_for_text", "wait_for_channel", "run_shell_command"}
        if needed - names:
            STATS.not_exercised.update(needed - names)
            pytest.fail(f"not installed yet, so not exercised: {sorted(needed - names)}")

        async def run(pane_id: str, count: int) -> None:
            for _ in range(count):
                result = await client.call_tool(
                    "run_shell_command", {"pane_id": pane_id, "command": "true", "timeout": 10}
                )
                assert not result.is_error, result.content
                assert result.structured_content["exit_status"] == 0

        # warm up every path once, so that lazily made pools count in the baseline
        await run(panes[0].pane_id, 2)
        for tool, args in (
            ("wait_for_text", {"pane_id": panes[0].pane_id, "timeout": 0.1}),
            ("wait_for_channel", {"channel": "warm", "timeout": 0.1}),
        ):
            assert not (await client.call_tool(tool, args)).is_error
        baseline = await settled(pid, tmux_server, snapshot(pid, tmux_server), timeout=2)
        baseline = snapshot(pid, tmux_server)

        started = time.monotonic()
        for batch in range(WAITS // BATCH):
            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as group:
                    for i in range(BATCH):
                        if i % 2:
                            args = {"channel": f"leak-{batch}-{i}", "timeout": 60}
                            group.start_soon(client.call_tool, "wait_for_channel", args)
                        else:
                            args = {
                                "pane_id": panes[i % 4].pane_id,
                                "patterns": ["never"],
                                "timeout": 60,
                            }
                            group.start_soon(client.call_tool, "wait_for_text", args)
                    # cancel once the waits are really waiting (their tmux clients exist,
                    # forked or over the socket)
                    await eventually(
                        tmux_server.connections, lambda now: now >= BATCH // 2,
                        within=10, every=0.01, last_on_timeout=True,
                    )
                    scope.cancel()
        waits_done = time.monotonic() - started
        async with anyio.create_task_group() as group:
            for pane in panes:
                group.start_soon(run, pane.pane_id, RUNS // len(panes))
        runs_done = time.monotonic() - started - waits_done

        after = await reaped(client, pid, tmux_server, baseline)
    STATS.leaks += sum(1 for key in baseline if after[key] != baseline[key])
    print(
        f"\nleaks: {WAITS} cancelled waits in {waits_done:.1f}s, {RUNS} runs in {runs_done:.1f}s; "
        f"baseline {baseline}, after {after}"
    )
    assert after == baseline
    left = sorted(p.name for p in private.iterdir())
    shutil.rmtree(private, ignore_errors=True)
    STATS.leaks += len(left)
    assert left == [], "private run files left behind"

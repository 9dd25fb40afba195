"""Cancellation: from ``notifications/cancelled`` to the wait's end, and what is left afterwards.

A 30 s wait (``wait_for_channel`` when muxport has it, else ``wait_for_text``; the
same tool on the peer) is started; once its tmux client exists the harness cancels the
call (the SDK then sends ``notifications/cancelled``) and polls every millisecond until
that client is gone: that is the wait's end as seen from outside. A client is counted
on the tmux server's side (its connected sockets, /proc): a forked ``tmux wait-for``
and muxport's socket client count alike. Median of 10. Afterwards: tmux child
processes of the server still alive, connections and ``list-clients`` of the tmux
server, and the server's thread count against its
count before the first wait (tasks are invisible from outside a process; threads
are what a worker-thread server leaks).
"""

from __future__ import annotations

import time
from typing import Any

import anyio
from muxport.testing.server import TmuxServer

from bench.harness import (
    SIDES,
    Row,
    Session,
    children,
    cmdline,
    connect,
    median,
    met,
    missing,
    ms,
    ratio,
    status_field,
    tmux_box,
    tools_available,
)

SAMPLES = 10
APPEAR = 5.0
SETTLE = 1.5  # longer than muxport's 1 s grace before a shared control client stops


def tmux_children(pid: int) -> set[int]:
    return {c for c in children(pid) if "tmux" in cmdline(c)}


def wait_call(tool: str, n: int, pane: str) -> dict[str, Any]:
    if tool == "wait_for_channel":
        return {"channel": f"bench-cancel-{n}", "timeout": 30}
    return {"pane_id": pane, "patterns": [f"never-printed-{n}"], "timeout": 30}


async def sample(
    session: Session, box: TmuxServer, tool: str, n: int, pane: str
) -> float | None:
    """Seconds from the cancel to the wait's tmux client leaving (None: it has none)."""
    before = box.connections()
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:
            group.start_soon(session.call, tool, wait_call(tool, n, pane))
            waiting = False
            if tool != "wait_for_channel":  # no client of its own: nothing to time from outside
                await anyio.sleep(0.5)
                scope.cancel()
            with anyio.move_on_after(APPEAR):
                while not waiting:
                    await anyio.sleep(0.005)
                    waiting = box.connections() > before
            await anyio.sleep(0.2)  # the wait is established; short-lived captures are gone by now
            waiting = box.connections() > before
            cancelled = time.perf_counter()
            scope.cancel()
    if not waiting:
        return None
    with anyio.fail_after(10):
        while box.connections() > before:  # noqa: ASYNC110
            await anyio.sleep(0.001)  # the tmux server closed that client's socket (/proc)
    return time.perf_counter() - cancelled


async def series(side: str, tool: str) -> dict[str, Any]:
    async with tmux_box() as (box, pane), connect(side, box) as session:
        await session.call("list_sessions", {})
        threads = status_field(session.pid, "Threads")
        base = tmux_children(session.pid)
        base_connections = box.connections()
        laps = [await sample(session, box, tool, n, pane.pane_id) for n in range(SAMPLES)]
        await anyio.sleep(SETTLE)
        connections_left = box.connections() - base_connections  # before any other client
        alive = (await session.call("list_sessions", {})).is_error is False
        return {
            "laps": [x for x in laps if x is not None],
            "no_process": laps.count(None),
            "children_left": len(tmux_children(session.pid) - base),
            "clients_left": len(box.clients()),
            "connections_left": connections_left,
            "threads_delta": status_field(session.pid, "Threads") - threads,
            "alive": alive,
        }


def lat(r: dict[str, Any]) -> str:
    if r["laps"]:
        return ms(median(r["laps"]))
    return "n/a (no per-wait client to time)"


def left(r: dict[str, Any]) -> str:
    return (
        f"{r['children_left']} procs, {r['connections_left']} conns, {r['clients_left']} clients, "
        f"{r['threads_delta']:+d} threads"
    )


async def measure() -> list[Row]:
    rows: list[Row] = []
    for tool in ("wait_for_channel", "wait_for_text"):
        async with tmux_box() as (box, _pane), connect("muxport", box) as session:
            have = await tools_available(session)
        if tool not in have:
            rows.append(Row(f"cancel {tool}", missing(tool), "-"))
            continue
        res = {side: await series(side, tool) for side in SIDES}
        m, p = res["muxport"], res["peer"]
        clean = (
            m["children_left"] == 0
            and m["connections_left"] <= 0
            and m["clients_left"] == 0
            and m["threads_delta"] <= 0
            and m["alive"]
        )
        rows += [
            Row(
                f"cancel {tool} -> its tmux client gone, median of {SAMPLES}",
                lat(m),
                lat(p),
                ratio(median(m["laps"]), median(p["laps"])) if m["laps"] and p["laps"] else "-",
                "",
                "-",
                {"muxport": m, "peer": p},
            ),
            Row(f"  left after {SAMPLES} cancelled {tool}", left(m), left(p), "", "0", met(clean)),
        ]
    return rows

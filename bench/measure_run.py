"""Running a shell command and getting its status: ``run_shell_command`` vs ``run_command``.

Round trips of ``true`` and ``echo hi`` (median of 50 each, after 3 warm-up runs, in
one pane), then ``seq 1 100000``: exit status returned, lines returned, wall time.
"""

from __future__ import annotations

import time
from typing import Any

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
    ratio,
    secs,
    text_of,
    tools_available,
)

RUNS = 50
WARMUP = 3
TOOL = {"muxport": "run_shell_command", "peer": "run_command"}


def run_args(side: str, pane: str, command: str, **extra: Any) -> dict[str, Any]:
    return {"pane_id": pane, "command": command, "timeout": 30, **extra}


async def one(session: Session, pane: str, command: str, out: dict[str, Any]) -> None:
    """One timed run; a refusal is counted and shown, not timed (README: back-to-back runs)."""
    tool = TOOL[session.side]
    start = time.perf_counter()
    result = await session.call(tool, run_args(session.side, pane, command))
    lap = time.perf_counter() - start
    if result.is_error:
        out[f"{command} refused"].append(text_of(result)[:120])
    elif data_of(result).get("exit_status") != 0:
        raise RuntimeError(f"{session.side} {tool} {command!r} failed: {data_of(result)}")
    else:
        out[command].append(lap)


async def seq(session: Session, pane: str) -> dict[str, Any]:
    start = time.perf_counter()
    result = await session.call(TOOL[session.side], run_args(session.side, pane, "seq 1 100000"))
    wall = time.perf_counter() - start
    data = data_of(result)
    return {
        "wall": wall,
        "exit_status": data.get("exit_status"),
        "lines": len(data.get("output") or []),
        "error": text_of(result)[:120] if result.is_error else None,
        "truncated": data.get("truncated", data.get("output_truncated")),
        "has_last": "100000" in (data.get("output") or []),
    }


async def series() -> dict[str, dict[str, Any] | None]:
    """Both servers at once; runs alternate between them so that load hits both alike."""
    async with both() as sides:
        live = [s for s in SIDES if TOOL[s] in await tools_available(sides[s][2])]
        out: dict[str, dict[str, Any]] = {s: {} for s in live}
        for command in ("true", "echo hi"):
            for side in live:
                out[side].update({command: [], f"{command} refused": []})
            for n in range(WARMUP + 2 * RUNS):  # bounded: refusals count against it
                for side in live:
                    _box, pane, session = sides[side]
                    if len(out[side][command]) >= RUNS:
                        continue
                    await one(session, pane.pane_id, command, out[side])
                    if n < WARMUP:
                        out[side][command].clear()
        for side in live:
            _box, pane, session = sides[side]
            out[side]["seq"] = await seq(session, pane.pane_id)
    return {side: out.get(side) for side in SIDES}


def cell(res: dict[str, Any], command: str) -> str:
    if not res:
        return missing("run_shell_command")
    refused = res[f"{command} refused"]
    return ms(median(res[command])) + (f" ({len(refused)} calls refused)" if refused else "")


def show(s: dict[str, Any] | None) -> str:
    if not s:
        return missing("run_shell_command")
    if s["error"]:
        return f"error: {s['error']}"
    last = "100000 returned" if s["has_last"] else "100000 missing"
    return f"exit {s.get('exit_status')}, {s.get('lines')} lines, {last}, {secs(s['wall'])}"


async def measure() -> list[Row]:
    res = await series()
    mx, pe = res["muxport"] or {}, res["peer"] or {}
    rows = []
    for command in ("true", "echo hi"):
        m, p = median(mx.get(command, [])), median(pe.get(command, []))
        rows.append(
            Row(
                f"run_shell_command {command!r} vs run_command, median of 50",
                cell(mx, command),
                cell(pe, command),
                ratio(m, p),
                "<= 0.5x",
                met(m <= 0.5 * p) if mx else "-",
                {
                    "muxport_refused": mx.get(f"{command} refused"),
                    "peer_refused": pe.get(f"{command} refused"),
                },
            )
        )
    sm, sp = mx.get("seq"), pe.get("seq")
    rows.append(
        Row(
            "seq 1 100000: exit status, lines returned, wall",
            show(sm),
            show(sp),
            ratio(sm["wall"], sp["wall"]) if sm and sp else "-",
            "exit 0 + newest lines",
            met(sm["exit_status"] == 0 and sm["has_last"]) if sm else "-",
            {"muxport": sm, "peer": sp},
        )
    )
    return rows

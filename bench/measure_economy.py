"""What an agent pays per task: tool calls made and characters returned to the model.

Characters are counted twice, as each client shows an answer to its model: the text blocks
(Gemini CLI, Codex) and ``structuredContent`` as compact JSON (Claude Code 2.1.332 shows
that, not the text; an answer without it is shown as its text) (issue 29).
"Complete" counts how many of the lines the task produced reached the model.

(a) a command printing 300 lines and ending with ``exit 1``: output and status.
    muxport: ``run_shell_command`` with ``max_lines=300``. Peer: ``run_command``
    returns the status and the visible screen only, so the agent adds one
    ``capture_pane`` reaching 300 lines back (given the right guess for free).
(b) a log that grows by 20 lines ten times, reading only what is new: the pane runs
    ``tail -f``; both servers use their ``capture_since`` (1 baseline call + 10).
(c) waiting for a "ready" line printed 2 s after the command starts: one
    ``wait_for_text`` on both.
(e) a command that outlives its wait (1 s wait, 3 s command, exit 4): muxport answers
    ``timed_out`` with a ``run_id`` and ``wait_for_run`` collects the status; the peer
    answers ``timed_out`` with no handle, so the status is lost (no equivalent).

Each task also runs through a plain send-keys/capture driver (plain_driver.py, the
Terminus-2 way: keys, ``tmux wait`` or a sleep, a diff of full-scrollback captures cut to
10 KB), in rows of their own: muxport beside it.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import anyio

from bench.harness import (
    SIDES,
    Row,
    Session,
    connect,
    data_of,
    missing,
    text_of,
    tmux_box,
    tools_available,
    wait_screen,
)
from bench.plain_driver import plain_a, plain_b, plain_c, plain_e

BUILD = 'for i in $(seq 1 300); do echo "build step $i ok"; done; exit 1'


class Tally:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.calls = 0
        self.chars = 0
        self.structured = 0  # characters of what Claude Code shows: structuredContent's JSON
        self.texts: list[str] = []

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await self.session.call(tool, args)
        self.calls += 1
        text = text_of(result)
        self.chars += len(text)
        self.structured += structured_size(result.structured_content, text)
        self.texts.append(text)
        if result.is_error:
            raise RuntimeError(f"{self.session.side} {tool} failed: {text[:300]}")
        return data_of(result)

    def found(self, pattern: str) -> int:
        return len(set(re.findall(pattern, "\n".join(self.texts))))


def structured_size(structured: Any, text: str) -> int:
    """Characters Claude Code shows its model of one answer: ``structuredContent`` as compact
    JSON, or the text when there is none."""
    if structured is None:
        return len(text)
    return len(json.dumps(structured, ensure_ascii=False, separators=(",", ":")))


async def task_a(side: str, session: Session, pane: str) -> dict[str, Any]:
    tally = Tally(session)
    if side == "muxport":
        data = await tally.call(
            "run_shell_command", {"pane_id": pane, "command": BUILD, "max_lines": 300}
        )
    else:
        data = await tally.call("run_command", {"pane_id": pane, "command": BUILD})
        await tally.call("capture_pane", {"pane_id": pane, "start": -310, "max_lines": 500})
    return {
        "calls": tally.calls,
        "chars": tally.chars,
        "structured": tally.structured,
        "exit_status": data.get("exit_status"),
        "complete": tally.found(r"build step (\d+) ok"),
    }


async def task_b(side: str, session: Session, pane: Any, box: Any) -> dict[str, Any]:
    log = Path(box.dir) / "app.log"
    log.write_text("")
    pane.type(f"tail -n 0 -f {log}")
    await wait_screen(pane, f"tail -n 0 -f {log}")
    await anyio.sleep(0.3)  # tail has opened the file
    tally = Tally(session)
    data = await tally.call("capture_since", {"pane_id": pane.pane_id})
    for r in range(10):
        with log.open("a") as f:
            f.writelines(
                f"2026-11-30T10:00:{r:02d} worker {r}.{i} handled request\n" for i in range(20)
            )
        await wait_screen(pane, f"worker {r}.19 handled")
        # muxport as a model uses it: its text leaves cursors out, "last" is the newest look;
        # the peer's model passes back the cursor its text shows
        cursor = "last" if side == "muxport" else data["cursor"]
        data = await tally.call("capture_since", {"pane_id": pane.pane_id, "cursor": cursor})
    pane.server.cmd("send-keys", "-t", pane.pane_id, "C-c")
    return {
        "calls": tally.calls,
        "chars": tally.chars,
        "structured": tally.structured,
        "complete": tally.found(r"worker (\d+\.\d+) handled"),
    }


async def task_c(side: str, session: Session, pane: Any) -> dict[str, Any]:
    tally = Tally(session)
    pane.type('sleep 2; echo "server is rea""dy on :8080"')
    start = time.perf_counter()
    data = await tally.call(
        "wait_for_text", {"pane_id": pane.pane_id, "patterns": ["ready"], "timeout": 10}
    )
    wall = time.perf_counter() - start
    ok = data.get("outcome") == "matched" or data.get("found") is True
    return {"calls": tally.calls, "chars": tally.chars, "structured": tally.structured,
            "matched": ok, "wall": wall}


async def task_e(side: str, session: Session, pane: str) -> dict[str, Any]:
    """A command that outlives its wait: 1 s wait, the command takes 3 s and exits 4."""
    tally = Tally(session)
    args = {"pane_id": pane, "command": "sleep 3; exit 4", "timeout": 1}
    if side == "muxport":
        data = await tally.call("run_shell_command", args)
        if data.get("outcome") == "timed_out":
            data = await tally.call("wait_for_run", {"run_id": data["run_id"], "timeout": 10})
    else:  # no handle to resume: the status of this run is lost to the agent
        data = await tally.call("run_command", args)
        await anyio.sleep(2.5)  # let the command end before the pane is torn down
    return {"calls": tally.calls, "chars": tally.chars, "structured": tally.structured,
            "exit_status": data.get("exit_status")}


TASKS = {"a": "run", "b": "capture_since", "c": "wait_for_text", "e": "run"}
PATTERNS = {"a": r"build step (\d+) ok", "b": r"worker (\d+\.\d+) handled"}


async def run_plain() -> dict[str, Any]:
    """The same tasks through the plain send-keys/capture driver."""
    out: dict[str, Any] = {}
    for key in TASKS:
        async with tmux_box() as (box, pane):
            if key == "a":
                out[key] = await plain_a(pane, BUILD)
            elif key == "b":
                out[key] = await plain_b(pane, box)
            elif key == "c":
                out[key] = await plain_c(pane)
            else:
                out[key] = await plain_e(pane)
        texts = out[key].pop("texts", None)
        if key in PATTERNS and texts is not None:
            out[key]["complete"] = len(set(re.findall(PATTERNS[key], "\n".join(texts))))
    return out


async def run_side(side: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, tool in TASKS.items():
        if tool == "run":
            tool = "run_shell_command" if side == "muxport" else "run_command"
        async with tmux_box() as (box, pane), connect(side, box) as session:
            if tool not in await tools_available(session):
                out[key] = None
            elif key == "a":
                out[key] = await task_a(side, session, pane.pane_id)
            elif key == "b":
                out[key] = await task_b(side, session, pane, box)
            elif key == "c":
                out[key] = await task_c(side, session, pane)
            else:
                out[key] = await task_e(side, session, pane.pane_id)
    return out


def cell(r: dict[str, Any] | None, total: int | None, tool: str) -> str:
    if r is None:
        return missing(tool)
    text = f"{r['calls']} calls, {r['chars']:,} chars"
    if "structured" in r:  # what Claude Code shows: structuredContent's JSON
        text += f" ({r['structured']:,} as structuredContent)"
    if total:
        text += f", {r['complete']}/{total} lines"
    if "exit_status" in r:
        text += f", exit {r['exit_status']}"
    if "matched" in r:
        text += f", {'matched' if r['matched'] else 'NOT matched'} after {r['wall']:.2f} s"
    return text


NAMES = {
    "a": ("(a) 300 lines + exit 1: calls, chars to model", 300, "run_shell_command"),
    "b": ("(b) log +20 lines x10, only new: calls, chars", 200, "capture_since"),
    "c": ("(c) wait for 'ready' after 2 s: calls, chars", None, "wait_for_text"),
    "e": ("(e) command outlives its 1 s wait (3 s, exit 4)", None, "wait_for_run"),
}


async def measure(sides: tuple[str, ...] = SIDES) -> list[Row]:
    res = {side: await run_side(side) for side in sides}
    res["plain"] = await run_plain()
    res.setdefault("peer", dict.fromkeys(TASKS))
    rows = []
    for key, (name, total, tool) in NAMES.items():
        m, p = res["muxport"][key], res["peer"][key]
        peer = cell(p, total, tool)
        if key == "e" and p is not None:
            peer += " (no equivalent: timed_out, no handle, status lost)"
        share = f"{m['chars'] / p['chars']:.2f}" if m and p else "-"
        rows.append(
            Row(name, cell(m, total, tool), peer, share, "", "-", {"muxport": m, "peer": p})
        )
    for key, (name, total, _tool) in NAMES.items():
        m, plain = res["muxport"][key], res["plain"][key]
        # both clients' view: the text (Gemini CLI, Codex), structuredContent (Claude Code)
        fewer = m is not None and m["calls"] <= plain["calls"] and max(
            m["chars"], m["structured"]) <= plain["chars"]
        ratio = "-"
        if m and plain["chars"]:
            ratio = f"{m['chars'] / plain['chars']:.2f} / {m['structured'] / plain['chars']:.2f}"
        rows.append(Row(
            f"{name} [beside: plain send-keys/capture]",
            cell(m, total, "run_shell_command"), cell(plain, total, "keys"),
            ratio, "calls, text and structuredContent chars <= plain", "yes" if fewer else "NO",
            {"muxport": m, "plain": plain},
        ))
    return rows

"""The plain way an agent drives tmux without an MCP server (Terminus-2's): it sends keys,
waits (``tmux wait-for`` on a channel its line signals, or a sleep), and is shown the
difference between two captures of the whole scrollback, cut to its last 10 KB.

Every "keys, wait, capture" is one call; the characters are those of the captures shown.
The economy tasks (measure_economy.py) run through it beside muxport and the peer.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
from muxport.testing.server import ShellPane

from bench.harness import wait_screen

SHOWN = 10_000  # characters of a capture diff the agent is shown (its newest)
POLL = 1.0  # seconds the agent sleeps before it looks again, when nothing signals


class Plain:
    """One pane driven by keys and full-scrollback captures."""

    def __init__(self, pane: ShellPane) -> None:
        self.pane = pane
        self.calls = 0
        self.chars = 0
        self.texts: list[str] = []
        self.seen: list[str] = pane.screen(history=True)

    def look(self) -> str:
        """Capture the scrollback; what is new since the last look, as the agent sees it."""
        now = self.pane.screen(history=True)
        same = 0
        for old, new in zip(self.seen[:-1], now, strict=False):  # the last line moves on
            if old != new:
                break
            same += 1
        self.seen = now
        shown = "\n".join(now[same:])[-SHOWN:]
        self.calls += 1
        self.chars += len(shown)
        self.texts.append(shown)
        return shown

    async def keys(self, line: str, within: float | None = None) -> str:
        """Type ``line``, wait until it signals (at most ``within`` seconds), then look."""
        channel = f"plain-{time.monotonic_ns()}"
        tmux = f"{self.pane.server.binary} -S {self.pane.server.socket_path}"
        self.pane.type(f"{line}; {tmux} wait-for -S {channel}")
        await self.signalled(channel, within)
        return self.look()

    async def signalled(self, channel: str, within: float | None) -> bool:
        """Wait for ``channel`` (what the agent's ``tmux wait`` does), at most ``within``."""
        command = [self.pane.server.binary, "-S", self.pane.server.socket_path, "wait-for",
                   channel]
        with anyio.move_on_after(within if within is not None else 60) as scope:
            await anyio.to_thread.run_sync(
                lambda: subprocess.run(command, check=False), abandon_on_cancel=True
            )
        return not scope.cancel_called

    async def wait_and_look(self) -> str:
        await anyio.sleep(POLL)
        return self.look()


async def plain_a(pane: ShellPane, build: str) -> dict[str, Any]:
    """300 lines and exit 1: the line prints the status too (one call)."""
    plain = Plain(pane)
    shown = await plain.keys(f'({build}); echo "exit status $?"')
    found = re.search(r"^exit status (\d+)$", shown, re.M)
    return {"calls": plain.calls, "chars": plain.chars, "texts": plain.texts,
            "exit_status": int(found.group(1)) if found else None}


async def plain_b(pane: ShellPane, box: Any, rounds: int = 10) -> dict[str, Any]:
    """A log that grows by 20 lines ten times: one look before, one after each burst."""
    log = Path(box.dir) / "app.log"
    log.write_text("")
    plain = Plain(pane)
    pane.type(f"tail -n 0 -f {log}")
    await wait_screen(pane, f"tail -n 0 -f {log}")
    plain.look()
    for r in range(rounds):
        with log.open("a") as f:
            f.writelines(
                f"2026-11-30T10:00:{r:02d} worker {r}.{i} handled request\n" for i in range(20)
            )
        await wait_screen(pane, f"worker {r}.19 handled")  # as the agent's sleep would
        plain.look()
    pane.server.cmd("send-keys", "-t", pane.pane_id, "C-c")
    return {"calls": plain.calls, "chars": plain.chars, "texts": plain.texts}


async def plain_c(pane: ShellPane, limit: float = 10.0) -> dict[str, Any]:
    """A "ready" line 2 s after the command starts: the agent looks every second."""
    plain = Plain(pane)
    start = time.perf_counter()
    pane.type('sleep 2; echo "server is rea""dy on :8080"')
    matched = False
    while time.perf_counter() - start < limit and not matched:
        matched = "ready on :8080" in await plain.wait_and_look()
    wall = time.perf_counter() - start
    return {"calls": plain.calls, "chars": plain.chars, "texts": plain.texts,
            "matched": matched, "wall": wall}


async def plain_e(pane: ShellPane) -> dict[str, Any]:
    """A command that outlives a 1 s wait (3 s, exit 4): look after 1 s, wait, look again."""
    plain = Plain(pane)
    channel = f"plain-{time.monotonic_ns()}"
    tmux = f"{pane.server.binary} -S {pane.server.socket_path}"
    pane.type(f'(sleep 3; exit 4); echo "exit status $?"; {tmux} wait-for -S {channel}')
    if not await plain.signalled(channel, 1.0):
        plain.look()  # still running: the agent sees nothing new yet
        await plain.signalled(channel, None)
    shown = plain.look()
    status = 4 if "exit status 4" in shown else None
    return {"calls": plain.calls, "chars": plain.chars, "texts": plain.texts,
            "exit_status": status}

"""``muxport --ssh`` to 127.0.0.1 beside the same launcher serving a local server (issue 23):
medians of ``list_sessions``, ``run_shell_command 'true'`` and ``wait_for_text`` (the text
printed right after the call starts: as soon as the wait reports itself armed, its first
progress notification), alternating between the two, after warm-ups.

The far side is the test kit's far host (``muxport.testing.farhost``: a test user and an
sshd of its own on 127.0.0.1, as the tests use), whose dedicated daemon the ssh launcher
starts; the local side is a private ``TmuxServer``. Each side has two bash panes of
160x48: one for the runs, one that prints every line written to a FIFO. Needs root; the
peer is not measured (no other tmux MCP server serves a server over ssh), so the ratio
is ssh / local.
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
from muxport.testing.clients import stdio_client
from muxport.testing.farhost import far_host
from muxport.testing.server import ShellPane, TmuxServer
from muxport.testing.waiting import eventually_blocking

from bench.harness import (
    CALL_LIMIT,
    HEIGHT,
    WIDTH,
    Row,
    data_of,
    median,
    met,
    ms,
    ratio,
    text_of,
)

COUNTS = {"list_sessions": (50, 5), "run": (20, 3), "wait": (20, 2)}  # samples, warm-ups
NAMES = {
    "list_sessions": "list_sessions over ssh to 127.0.0.1 (--ssh), median of 50",
    "run": "run_shell_command 'true' over ssh to 127.0.0.1 (--ssh), median of 20",
    "wait": "wait_for_text, text printed once armed, over ssh (--ssh): call -> answer, "
            "median of 20",
}
SIDES = ("ssh", "local")


def printer(pane: ShellPane) -> int:
    """Make ``pane`` print every line written to a FIFO beside its rc files; the FIFO's
    write end (opened once the pane's loop holds it open)."""
    path = Path(pane.server.dir) / "marks.fifo"
    os.mkfifo(path)
    path.chmod(0o666)  # the far user's shell opens it
    pane.type(f"exec 3<>{path}; while IFS= read -r l <&3; do printf '%s\\n' \"$l\"; done")

    def opened() -> int:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:  # ENXIO: the loop has not opened it yet
            if exc.errno != errno.ENXIO:
                raise
            return -1

    return eventually_blocking(opened, lambda fd: fd >= 0, what="the pane's FIFO loop",
                               within=20)


async def timed_call(client: Any, tool: str, args: dict[str, Any],
                     armed: Callable[[], object] | None = None) -> tuple[float, Any]:
    """Seconds from sending the call to its answer. With ``armed``: that runs at the
    call's first progress notification (a wait reports itself armed so), and the answer
    holds ``armed_to_answer``, the seconds from then to the answer."""
    box: dict[str, Any] = {}

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if armed is not None and "armed_at" not in box:
            box["armed_at"] = time.perf_counter()
            armed()

    async def call() -> None:
        box["result"] = await client.call_tool(tool, args, progress_callback=progress)
        box["at"] = time.perf_counter()

    with anyio.fail_after(CALL_LIMIT):
        async with anyio.create_task_group() as group:
            start = time.perf_counter()
            group.start_soon(call)
    result = box["result"]
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {text_of(result)[:200]}")
    data = {"frame": "local", **data_of(result)}  # the answer leaves a default out
    if "armed_at" in box:
        data["armed_to_answer"] = box["at"] - box["armed_at"]
    return box["at"] - start, data


async def series(
    clients: dict[str, Any], panes: dict[str, tuple[str, str]], fifos: dict[str, int]
) -> tuple[dict[str, dict[str, list[float]]], dict[str, Any]]:
    laps: dict[str, dict[str, list[float]]] = {k: {s: [] for s in SIDES} for k in COUNTS}
    seen: dict[str, Any] = {"frames": {s: set() for s in SIDES},
                            "detect": {s: [] for s in SIDES}}

    def sample(kind: str, side: str, n: int) -> Awaitable[tuple[float, Any]]:
        client, (runs, prints) = clients[side], panes[side]
        if kind == "list_sessions":
            return timed_call(client, "list_sessions", {})
        if kind == "run":
            return timed_call(client, "run_shell_command",
                              {"pane_id": runs, "command": "true", "timeout": 30})
        marker = f"MARK_{side}_{n}_"
        return timed_call(client, "wait_for_text",
                          {"pane_id": prints, "patterns": [marker], "timeout": 20},
                          lambda: os.write(fifos[side], f"{marker}\n".encode()))

    for kind, (samples, warmup) in COUNTS.items():
        for n in range(warmup + samples):
            for side in SIDES:
                lap, data = await sample(kind, side, n)
                if kind == "run":
                    if data.get("exit_status") != 0:
                        raise RuntimeError(f"run 'true' on the {side} side: {data}")
                    seen["frames"][side].add(str(data.get("frame")))
                if kind == "wait" and (data.get("outcome") != "matched"
                                       or "armed_to_answer" not in data):
                    raise RuntimeError(f"wait on the {side} side: {data}")
                if n >= warmup:
                    laps[kind][side].append(lap)
                    if kind == "wait":
                        seen["detect"][side].append(data["armed_to_answer"])
    return laps, seen


def rows(laps: dict[str, dict[str, list[float]]], seen: dict[str, Any]) -> list[Row]:
    def note(kind: str, side: str) -> str:
        if kind == "run":
            return f" (frame {'/'.join(sorted(seen['frames'][side]))})"
        if kind == "wait":
            return f" (armed -> answer {ms(median(seen['detect'][side]))})"
        return ""

    out = []
    for kind, name in NAMES.items():
        far, here = median(laps[kind]["ssh"]), median(laps[kind]["local"])
        out.append(Row(name, ms(far) + note(kind, "ssh"),
                       f"local server: {ms(here)}{note(kind, 'local')}", ratio(far, here),
                       "ssh / local <= 3 (issue 23)", met(far <= 3 * here),
                       {**laps[kind], **({"armed_to_answer": seen["detect"]} if kind == "wait"
                                         else {})}))
    return out


async def measure() -> list[Row]:
    if os.geteuid() != 0 or shutil.which("/usr/sbin/sshd") is None:
        return [Row(NAMES["list_sessions"].split(",")[0],
                    "skipped: needs root and openssh-server (it makes a test user and "
                    "starts its own sshd on 127.0.0.1)", "-")]
    with far_host() as far:
        box = TmuxServer()
        try:
            local_env = {"LIBTMUX_SOCKET_PATH": box.socket_path}
            async with far.client() as over, stdio_client(local_env) as here:
                servers = {"ssh": far.server(), "local": box}
                runs = {s: servers[s].shell_pane("bash", WIDTH, HEIGHT).pane_id for s in SIDES}
                prints = {s: servers[s].shell_pane("bash", WIDTH, HEIGHT) for s in SIDES}
                fifos = {s: printer(prints[s]) for s in SIDES}
                panes = {s: (runs[s], prints[s].pane_id) for s in SIDES}
                try:
                    laps, seen = await series({"ssh": over, "local": here}, panes, fifos)
                finally:
                    for fd in fifos.values():
                        os.close(fd)
        finally:
            box.kill()
    return rows(laps, seen)

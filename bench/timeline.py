"""Where one tool call spends its time: every tmux invocation, its start offset and duration.

Diagnostic, not a measurement: ``.venv/bin/python -m bench.timeline [TOOL]`` where TOOL is
``run_shell_command`` (default) or ``list_sessions``.
It builds the server in this process (the test kit's in-process client) on a private
tmux server and wraps ``Tmux.run``/``Tmux.start_client`` to log each invocation.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import anyio
from muxport._internal import transport
from muxport.testing.clients import in_process_client
from muxport.testing.server import TmuxServer

CALLS = 5
log: list[tuple[float, float, str]] = []
origin = [0.0]
_run, _start = transport.Tmux.run, transport.Tmux.start_client


async def run(self: transport.Tmux, *commands: Any, check: bool = True) -> transport.TmuxResult:
    begun = time.perf_counter()
    try:
        return await _run(self, *commands, check=check)
    finally:
        names = " ; ".join(str(c[0]) for c in commands)
        log.append((begun - origin[0], time.perf_counter() - begun, names))


async def start_client(self: transport.Tmux, *args: str) -> Any:
    begun = time.perf_counter()
    process = await _start(self, *args)
    log.append((begun - origin[0], time.perf_counter() - begun, f"start client: {args[0]}"))
    return process


async def main(tool: str) -> None:
    transport.Tmux.run = run  # type: ignore[method-assign]
    transport.Tmux.start_client = start_client  # type: ignore[method-assign]
    box = TmuxServer()
    try:
        pane = box.shell_pane("bash", 160, 48)
        args = {"pane_id": pane.pane_id, "command": "true"} if tool == "run_shell_command" else {}
        async with in_process_client(box.socket_path) as (client, _app):
            for _ in range(CALLS):
                log.clear()
                origin[0] = time.perf_counter()
                await client.call_tool(tool, args)
                total = time.perf_counter() - origin[0]
            print(f"{tool}: {total * 1000:.1f} ms in process (call {CALLS} of {CALLS})")
            for at, took, what in log:
                print(f"  at {at * 1000:6.1f} ms  {took * 1000:5.1f} ms  {what}")
    finally:
        box.kill()


if __name__ == "__main__":
    anyio.run(main, sys.argv[1] if len(sys.argv) > 1 else "run_shell_command")

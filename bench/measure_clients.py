"""What real clients hand their model (issue 29): each client's inline limit for one tool
result, and the economy tasks through each client, muxport beside the plain driver.

Not part of ``bench/run`` (it needs npm and a minute per client): run it as
``.venv/bin/python -m bench.measure_clients [limits] [economy] [--clients=claude,gemini]``.

- Limits: the client's model calls ``emit`` of ``muxport.testing.sized_server`` (a text of
  exactly N characters of numbered lines) for a sweep of N; the largest N handed to the
  model whole, the smallest cut, and what the cut keeps.
- Economy (calls and characters): the tasks of measure_economy.py, the model calling
  muxport's tools through the client (the log of (b) grows, the command of (c) starts,
  between the model's turns); then the plain driver's looks (plain_driver.py, run on its
  own pane) served by a replay server (``sized_server`` with ``MUXPORT_REPLAY``) through
  the same client. The figures: how many tool results reached the model, and their
  characters, each as the model got it in the turn after its call.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from muxport.testing import agents, sized_server
from muxport.testing.clients import launcher
from muxport.testing.model_api import ModelStub, Script
from muxport.testing.server import ShellPane, TmuxServer

from bench.harness import tmux_box
from bench.measure_economy import BUILD
from bench.plain_driver import plain_a, plain_b, plain_c, plain_e

SWEEP = (10_000, 20_000, 30_000, 39_900, 39_959, 39_960, 40_000, 40_001, 45_000, 50_000,
         50_001, 60_000, 100_000)


def sized(name: str, replay: Path | None = None) -> agents.Server:
    env = {"MUXPORT_REPLAY": str(replay)} if replay else {}
    return agents.Server(sys.executable, [sized_server.__file__], env, name="sized")


def limits(client: str) -> dict[str, Any]:
    with ModelStub(script=[("emit", {"chars": n}) for n in SWEEP], server="sized") as stub:
        agents.run(client, sized(client), stub.url, timeout=300)
    got = stub.handed()
    whole = [n for n, text in zip(SWEEP, got, strict=False) if sized_server.sized_text(n) in text]
    cut = [n for n, text in zip(SWEEP, got, strict=False) if n not in whole]
    kept = ""
    if cut:
        lines = [int(x) for x in re.findall(r"line (\d{6})", got[SWEEP.index(cut[-1])])]
        kept = (f"of {cut[-1]:,} chars ({cut[-1] // 100 + 1} lines) the model gets lines "
                f"{lines[0]}-{_gap(lines)}-{lines[-1]}" if lines else "no line")
    return {"version": agents.AGENTS[client].version, "whole_up_to": max(whole, default=0),
            "cut_from": min(cut, default=None), "kept": kept}


def _gap(lines: list[int]) -> str:
    for a, b in itertools.pairwise(lines):
        if b != a + 1:
            return f"{a} ... {b}"
    return "(no gap)"


def economy_muxport(client: str, task: str) -> tuple[int, int]:
    """Characters of muxport's results the client handed its model for ``task``."""
    server = TmuxServer()
    try:
        pane = server.shell_pane("bash", 160, 48)
        script, before = muxport_task(task, server, pane)
        with ModelStub(script=script, before=before) as stub:
            env = {"LIBTMUX_SOCKET_PATH": server.socket_path}
            agents.run(client, agents.Server(launcher(), [], env), stub.url, timeout=300)
    finally:
        server.kill()
    return len(stub.handed()), sum(len(text) for text in stub.handed())


def economy_plain(client: str, task: str) -> tuple[int, int]:
    """Characters of the plain driver's looks for ``task``, handed on by the client."""
    texts = anyio.run(plain_texts, task)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
    looks: Script = [("look", {"n": n}) for n in range(len(texts))]
    with ModelStub(script=looks, server="sized") as stub:
        agents.run(client, sized(client, Path(f.name)), stub.url, timeout=300)
    Path(f.name).unlink()
    return len(stub.handed()), sum(len(text) for text in stub.handed())


async def plain_texts(task: str) -> list[str]:
    async with tmux_box() as (box, pane):
        if task == "a":
            done = await plain_a(pane, BUILD)
        elif task == "b":
            done = await plain_b(pane, box)
        elif task == "c":
            done = await plain_c(pane)
        else:
            done = await plain_e(pane)
    return list(done["texts"])


def on_screen(server: TmuxServer, pane: ShellPane, text: str, within: float = 20) -> None:
    """A bounded poll (between the model's turns, in the stand-in's thread)."""
    deadline = time.monotonic() + within
    while text not in server.cmd("capture-pane", "-p", "-t", pane.pane_id):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{text!r} not on the screen")
        time.sleep(0.05)


def muxport_task(task: str, server: TmuxServer,
                 pane: ShellPane) -> tuple[Script, dict[int, Callable[[], None]]]:
    """The calls measure_economy.py makes for ``task``, and what happens between them."""
    pid = pane.pane_id
    if task == "a":
        return [("run_shell_command", {"pane_id": pid, "command": BUILD, "max_lines": 300})], {}
    if task == "c":
        def start() -> None:
            pane.type('sleep 2; echo "server is rea""dy on :8080"')
        return [("wait_for_text", {"pane_id": pid, "patterns": ["ready"], "timeout": 10})], \
            {0: start}
    if task == "e":
        def collect(results: list[str]) -> tuple[str, dict[str, Any]]:
            found = re.search(r'"run_id":\s*"([^"]+)"', results[-1])
            return ("wait_for_run", {"run_id": found.group(1) if found else "?", "timeout": 10})
        first = ("run_shell_command", {"pane_id": pid, "command": "sleep 3; exit 4",
                                       "timeout": 1})
        return [first, collect], {}
    log = server.dir / "app.log"
    log.write_text("")

    def tail() -> None:
        pane.type(f"tail -n 0 -f {log}")
        on_screen(server, pane, f"tail -n 0 -f {log}")
        time.sleep(0.3)  # tail has opened the file

    def burst(r: int) -> Callable[[], None]:
        def grow() -> None:
            with log.open("a") as f:
                f.writelines(f"2026-11-30T10:00:{r:02d} worker {r}.{i} handled request\n"
                             for i in range(20))
            on_screen(server, pane, f"worker {r}.19 handled")
        return grow

    script: Script = [("capture_since", {"pane_id": pid})]
    # no two calls alike: Gemini CLI stops a turn that repeats one call (loop detection)
    script += [("capture_since", {"pane_id": pid, "cursor": "last", "max_lines": 100 + r})
               for r in range(10)]
    return script, {0: tail, **{r + 1: burst(r) for r in range(10)}}


def main(argv: list[str]) -> None:
    clients = ["claude", "gemini", "codex"]
    for arg in argv:
        if arg.startswith("--clients="):
            clients = arg.split("=", 1)[1].split(",")
    parts = [a for a in argv if not a.startswith("--")] or ["limits", "economy"]
    for client in clients:
        if (why := agents.install(client)) is not None:
            print(f"{client}: not installed: {why}")
            continue
        if "limits" in parts:
            print(json.dumps({"client": client, **limits(client)}), flush=True)
        if "economy" in parts:
            for task in ("a", "b", "c", "e"):
                calls, chars = economy_muxport(client, task)
                looks, shown = economy_plain(client, task)
                row = {"client": client, "task": task, "muxport": chars, "calls": calls,
                       "plain": shown, "looks": looks}
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

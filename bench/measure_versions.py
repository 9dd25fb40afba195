"""Per tmux version: ``list_sessions`` round trip (median of 50) and ``run_shell_command
'true'`` against ``run_command`` (median of 20), muxport beside the peer.

The versions are those ``../shared/tmux/build.sh`` prints (built once, then reused), else
those in the cache it builds into (``$MUXPORT_TMUX_CACHE`` or ``~/.cache/muxport-tmux``).
For each, its ``bin`` folder goes first on ``PATH`` (the test kit's ``--tmux-bin`` way), so
the private tmux server, the ``tmux`` its panes run and both launched servers are that
version. A version that cannot be had is a row saying so; a peer that fails on a version is
a ``failed`` cell beside muxport's figure.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio

from bench.harness import ROOT, SIDES, Row, Session, connect, median, ms, ratio, tmux_box
from bench.measure_run import one

VERSIONS = ("3.2a", "3.3a", "3.4", "3.5a", "3.6a", "3.7c", "next-3.8")
CALLS, CALL_WARMUP = 50, 5  # fewer than measure_roundtrip's 200: seven versions must fit
RUNS, RUN_WARMUP = 20, 3
BUILD = ROOT.parent / "shared" / "tmux" / "build.sh"
BUILD_LIMIT = 120.0  # seconds: a missing version is built (~40 s on 2 cores)
VERSION_LIMIT = 90.0  # seconds: one hung version becomes its own failed rows
LIMIT = 700.0  # main.py's bound for this module: seven versions, and builds when missing


async def runs(argv: list[str], limit: float) -> str | None:
    """stdout of ``argv`` if it succeeds within ``limit``, else None."""
    with anyio.move_on_after(limit):
        try:
            done = await anyio.run_process(argv, check=False)
        except OSError:
            return None
        return done.stdout.decode().strip() if done.returncode == 0 else None
    return None


async def binary(version: str) -> tuple[str | None, str]:
    """The tmux binary of ``version`` and where it came from, or None and why not."""
    if BUILD.is_file():
        # one version per call: build.sh stops at the first version it cannot build
        out = await runs([str(BUILD), version], BUILD_LIMIT)
        if out:
            return out.splitlines()[-1], "build.sh"
    cache = Path(os.environ.get("MUXPORT_TMUX_CACHE") or Path.home() / ".cache/muxport-tmux")
    path = cache / version / "bin" / "tmux"
    if await runs([str(path), "-V"], 10.0):
        return str(path), "cache"
    how = f"{BUILD} failed and " if BUILD.is_file() else ""
    return None, f"{how}no working {path}"


@contextmanager
def first_on_path(folder: str) -> Iterator[None]:
    """``folder`` first on PATH: ``TmuxServer`` resolves ``tmux`` from it, the tmux server
    (and so its panes) inherits it, and ``clean_env`` hands it to both launched servers."""
    before = os.environ.get("PATH", "")
    os.environ["PATH"] = folder + os.pathsep + before
    try:
        yield
    finally:
        os.environ["PATH"] = before


async def lap(session: Session) -> float:
    start = time.perf_counter()
    result = await session.call("list_sessions", {})
    took = time.perf_counter() - start
    if result.is_error:
        raise RuntimeError(f"list_sessions failed: {result.content}")
    return took


@asynccontextmanager
async def own_stack(side: str, failed: dict[str, str]) -> AsyncIterator[AsyncExitStack]:
    """One side's tmux server and connection; the peer's error on closing is its own
    failure, not the version's (muxport's is raised)."""
    stack = AsyncExitStack()
    try:
        yield stack
    finally:
        try:
            await stack.aclose()
        except Exception as exc:
            if side == "muxport":
                raise
            failed.setdefault(side, f"on close: {type(exc).__name__}: {str(exc)[:80]}")


async def series(stacks: dict[str, AsyncExitStack], failed: dict[str, str]) -> dict[str, Any]:
    """Both sides on their own tmux server of this version, alternating; a peer that fails
    (at start or on a call) is left out from then on, muxport's failure ends the version."""
    live: dict[str, tuple[str, Session]] = {}
    servers: dict[str, str] = {}
    out: dict[str, dict[str, list[Any]]] = {
        side: {"ls": [], "true": [], "true refused": []} for side in SIDES
    }

    async def step(side: str, work: Awaitable[Any]) -> Any:
        try:
            return await work
        except Exception as exc:
            if side == "muxport":
                raise
            failed[side] = f"{type(exc).__name__}: {str(exc)[:80]}"
            live.pop(side, None)
            return None

    for side in SIDES:
        box, pane = await stacks[side].enter_async_context(tmux_box())
        servers[side] = box.version
        session = await step(side, stacks[side].enter_async_context(connect(side, box)))
        if session is not None:
            live[side] = (pane.pane_id, session)
    for n in range(CALL_WARMUP + CALLS):
        for side in list(live):  # alternating: background load hits both alike
            took = await step(side, lap(live[side][1]))
            if took is not None and n >= CALL_WARMUP:
                out[side]["ls"].append(took)
    for n in range(RUN_WARMUP + 2 * RUNS):  # bounded: refusals count against it
        for side in list(live):
            if len(out[side]["true"]) < RUNS:
                pane, session = live[side]
                await step(side, one(session, pane, "true", out[side]))
                if n < RUN_WARMUP:
                    out[side]["true"].clear()
    return {"out": out, "tmux_server": servers}


def cell(side: str, laps: list[float], failed: dict[str, str], refused: int = 0) -> str:
    if side in failed or not laps:
        return "failed"
    return ms(median(laps)) + (f" ({refused} calls refused)" if refused else "")


async def version_rows(version: str) -> list[Row]:
    path, source = await binary(version)
    if path is None:
        return [Row(f"tmux {version}", f"not available: {source}", "-")]
    names = (
        f"list_sessions round trip, tmux {version}",
        f"run_shell_command 'true', tmux {version}",
    )
    failed: dict[str, str] = {}
    detail: dict[str, Any] = {"binary": path, "from": source}
    try:
        with first_on_path(str(Path(path).parent)), anyio.fail_after(VERSION_LIMIT):
            async with (
                own_stack("muxport", failed) as mux,
                own_stack("peer", failed) as peer,
            ):
                got = await series({"muxport": mux, "peer": peer}, failed)
    except Exception as exc:  # muxport failed on this version: say so, go on to the next
        why = f"failed: {type(exc).__name__}: {str(exc)[:80]}"
        return [Row(name, why, "-", detail=detail) for name in names]
    out, detail["tmux_server"], detail["peer_failed"] = got["out"], got["tmux_server"], failed
    m, p = out["muxport"], out["peer"]
    rows = []
    for name, key in zip(names, ("ls", "true"), strict=True):
        refused = {side: len(out[side].get(f"{key} refused", [])) for side in SIDES}
        both = "peer" not in failed
        rows.append(
            Row(
                name,
                cell("muxport", m[key], failed, refused["muxport"]),
                cell("peer", p[key], failed, refused["peer"]),
                ratio(median(m[key]), median(p[key])) if both else "-",
                "",
                "-",
                {**detail, "samples": {side: len(out[side][key]) for side in SIDES}},
            )
        )
    return rows


async def measure() -> list[Row]:
    rows: list[Row] = []
    for version in VERSIONS:
        rows += await version_rows(version)
    return rows

"""Shared pieces of the benchmark: the two servers, private tmux servers, a client, statistics.

Both servers are launched as real processes and spoken to with the MCP SDK's
``mcp.Client`` over stdio (``mode="legacy"``, the initialize handshake). Every
measurement gets its own tmux server on a private socket in a private directory
(the test kit's ``TmuxServer``), never the default socket.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult
from muxport.testing.server import ShellPane, TmuxServer

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
MUXPORT = str(ROOT / ".venv" / "bin" / "muxport")
PEER = str(BENCH / ".peer-venv" / "bin" / "libtmux-mcp")
SIDES = ("muxport", "peer")
WIDTH, HEIGHT = 160, 48  # the same pane size for both servers
CALL_LIMIT = 60.0  # no single request may hang the run (the longest wait asked for is 30 s)


@dataclass
class Row:
    """One line of the final table."""

    name: str
    muxport: str
    peer: str
    ratio: str = ""
    target: str = ""
    met: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def secs(seconds: float) -> str:
    return f"{seconds:.2f} s"


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def pct(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank): p99 of 60 samples is the 60th."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 100))))
    return ordered[rank - 1]


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b and b == b and a == a else "-"


def met(ok: bool | None) -> str:
    return "-" if ok is None else ("yes" if ok else "NO")


def clean_env(**extra: str) -> dict[str, str]:
    """The caller's environment without tmux or selection variables, plus ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LIBTMUX_", "TMUX", "MUXPORT_", "FASTMCP_"))
    }
    env.update(extra)
    return env


def server_params(
    side: str, socket_path: str, extra: dict[str, str] | None = None
) -> StdioServerParameters:
    """How to launch ``side`` against the tmux server at ``socket_path``."""
    env = clean_env(LIBTMUX_SOCKET_PATH=socket_path, TMUX_TMPDIR=str(Path(socket_path).parent))
    env.update(extra or {})
    command = MUXPORT if side == "muxport" else PEER
    return StdioServerParameters(command=command, args=[], env=env)


def children(pid: int) -> list[int]:
    """Direct child processes of ``pid`` (Linux /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def cmdline(pid: int) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


def status_field(pid: int, key: str) -> int:
    """An integer field of /proc/PID/status (``VmRSS`` in kB, ``Threads``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return -1


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` so far (its own threads; not its reaped children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pid(command: str, before: set[int]) -> int:
    """The pid of the server this harness just launched (a new child running ``command``)."""
    for pid in children(os.getpid()):
        if pid not in before and command in cmdline(pid):
            return pid
    return -1


@dataclass
class Session:
    """A connected client and what the harness knows about its server process."""

    client: Client
    pid: int
    side: str

    async def call(self, tool: str, args: dict[str, Any], **kw: Any) -> CallToolResult:
        return await self.client.call_tool(tool, args, **kw)


@asynccontextmanager
async def connect(
    side: str, box: TmuxServer, extra_env: dict[str, str] | None = None
) -> AsyncIterator[Session]:
    """Launch ``side`` against ``box`` and yield a connected session; its stderr is discarded."""
    params = server_params(side, box.socket_path, extra_env)
    before = set(children(os.getpid()))
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            transport = stdio_client(params, errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=CALL_LIMIT) as client:
                session = Session(client, server_pid(params.command, before), side)
                async with profiled(session):
                    yield session
        except BaseException:
            errlog.seek(0)
            sys.stderr.write(f"[{side} stderr]\n{errlog.read()[-3000:]}\n")
            raise


@asynccontextmanager
async def profiled(session: Session) -> AsyncIterator[None]:
    """With BENCH_PYSPY (py-spy) and BENCH_PROFILE_DIR set, sample the muxport server."""
    spy, out = os.environ.get("BENCH_PYSPY"), os.environ.get("BENCH_PROFILE_DIR")
    if not (spy and out and session.side == "muxport" and session.pid > 0):
        yield
        return
    path = Path(out) / f"muxport-{session.pid}.txt"
    process = await anyio.open_process(
        [
            spy,
            "record",
            "--pid",
            str(session.pid),
            "--format",
            "raw",
            "--rate",
            "250",
            "--nonblocking",
            "-o",
            str(path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    await anyio.sleep(0.3)  # attached
    try:
        yield
    finally:
        with anyio.CancelScope(shield=True):
            process.send_signal(signal.SIGINT)
            await process.wait()


@asynccontextmanager
async def tmux_box(
    shell_width: int = WIDTH, shell_height: int = HEIGHT
) -> AsyncIterator[tuple[TmuxServer, ShellPane]]:
    """A private tmux server with one ready bash pane; killed and removed afterwards."""
    box = TmuxServer()
    try:
        pane = box.shell_pane("bash", width=shell_width, height=shell_height)
        yield box, pane
    finally:
        box.kill()


def text_of(result: CallToolResult) -> str:
    """What the model reads: the text blocks of a result."""
    return "".join(getattr(block, "text", "") for block in result.content)


def data_of(result: CallToolResult) -> dict[str, Any]:
    """The structured answer (or the text parsed as JSON; FastMCP wraps lists in ``result``)."""
    if result.structured_content is not None:
        return dict(result.structured_content)
    try:
        value = json.loads(text_of(result))
    except ValueError:
        return {"text": text_of(result)}
    return value if isinstance(value, dict) else {"result": value}


async def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = await fn()
    return time.perf_counter() - start, value


async def tools_available(session: Session) -> set[str]:
    listed = await session.client.list_tools()
    return {tool.name for tool in listed.tools}


def missing(tool: str) -> str:
    return f"n/a ({tool} not built yet)"


async def wait_screen(pane: ShellPane, needle: str, limit: float = 10.0) -> None:
    """Harness-side wait (not counted): poll the pane until ``needle`` is on screen."""
    with anyio.fail_after(limit):
        while not any(needle in line for line in pane.screen(history=True)):  # noqa: ASYNC110
            await anyio.sleep(0.02)  # another process's screen: nothing to await but time


@asynccontextmanager
async def both() -> AsyncIterator[dict[str, tuple[TmuxServer, ShellPane, Session]]]:
    """Both servers at once, each on its own private tmux server, so that samples can
    alternate between them and background load hits both alike."""
    async with (
        tmux_box() as (box_m, pane_m),
        tmux_box() as (box_p, pane_p),
        connect("muxport", box_m) as mux,
        connect("peer", box_p) as peer,
    ):
        yield {"muxport": (box_m, pane_m, mux), "peer": (box_p, pane_p, peer)}

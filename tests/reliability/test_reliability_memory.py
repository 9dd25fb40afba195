"""A client that stops reading cannot grow the server without bound: past the caps on calls
in flight and on unwritten answer bytes the server stops reading (docs/reliability.md), and
its memory falls back once the client has read everything."""

from __future__ import annotations

import functools
import json
import os
import select
import time
from pathlib import Path

import anyio
import pytest
from muxport.testing import eventually
from reliability_kit import STATS, RawLauncher

pytestmark = pytest.mark.timeout(240)
CALLS = 1000
RSS_BOUND = 200 << 20  # bytes (docs/reliability.md)
SETTLE = 6.0  # seconds the unread answers are left to pile up


def rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(row for row in status.splitlines() if row.startswith("VmRSS:"))
    return int(line.split()[1]) << 10


def test_unread_answers_keep_memory_bounded(tmux_server, shell_pane, sandbox):
    pane = shell_pane("bash", width=120)
    pane.run("python3 -c \"[print(str(i).rjust(99, 'x')) for i in range(2100)]\"")
    raw = RawLauncher({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                       "LIBTMUX_TOOLSETS": "inspect",
                       "MUXPORT_MAX_ANSWER_BYTES": "1000000"})  # answers as large as allowed
    try:
        raw.initialize()
        args = {"pane_id": pane.pane_id, "history": True, "max_lines": 5000}
        first = raw.read(raw.call("capture_pane", args))
        size = len(json.dumps(first))
        assert size > 350_000, size  # each answer is ~400 KB on the wire
        baseline = rss(raw.process.pid)
        frames = b"".join(
            json.dumps({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
                        "params": {"name": "capture_pane", "arguments": args}}).encode() + b"\n"
            for i in range(CALLS)
        )
        # The server stops reading: the requests are written from a thread that blocks.
        writer = raw.send_behind(frames)
        samples: list[int] = []
        # /proc sends no event: RSS is sampled through the kit's bounded wait for SETTLE s.
        anyio.run(functools.partial(
            eventually, lambda: samples.append(rss(raw.process.pid)), lambda _: False,
            within=SETTLE, every=0.05, last_on_timeout=True,
        ))
        peak = max(samples)
        STATS.memory_checks += 1
        assert peak < RSS_BOUND, (peak >> 20, baseline >> 20)
        assert writer.is_alive(), "the server read every request while nobody read answers"
        assert raw.process.stdout is not None
        fd, seen, buffer = raw.process.stdout.fileno(), 0, b""
        drain_deadline = time.monotonic() + 180
        while seen < CALLS:
            assert time.monotonic() < drain_deadline, seen
            if select.select([fd], [], [], 5)[0]:
                chunk = os.read(fd, 1 << 20)
                assert chunk, "the launcher closed its stdout"
                buffer += chunk
                seen += buffer.count(b"\n")
                buffer = buffer[buffer.rfind(b"\n") + 1:]
                peak = max(peak, rss(raw.process.pid))
        writer.join(10)
        assert raw.send_error is None, raw.send_error
        assert peak < RSS_BOUND, (peak >> 20, baseline >> 20)
        after = rss(raw.process.pid)
        assert after < baseline + (60 << 20), (after >> 20, baseline >> 20, peak >> 20)
        print(f"rss MiB: baseline {baseline >> 20}, peak {peak >> 20}, after {after >> 20}")
        ok = raw.read(raw.call("list_sessions", {}))
        assert ok["result"]["structuredContent"]["count"] == 1
    finally:
        raw.kill()

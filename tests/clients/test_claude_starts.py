"""Issue 29's acceptance for the connection: 20 headless Claude Code starts in a row with
both cores kept busy by other work; muxport's tools are in the model's first request every
time, ``server/discover`` is answered within 0.5 s, and no answer is -32022. muxport's
stdio is recorded by muxport.testing.stdio_recorder (docs/client-fit.md, "Real clients")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from clients_kit import messages
from muxport.testing import agents

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]
STARTS = 20
BURN = "while True: pass"


@pytest.fixture
def busy_cores() -> Iterator[None]:
    """One spinning process per core, ended (by pid) afterwards."""
    spinners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait(timeout=10)


def discover_delay(log: Path) -> float | None:
    """Seconds from the client's ``server/discover`` to muxport's answer (None: not asked,
    or not answered)."""
    seen = messages(log)
    asked = next((m for m in seen if m["dir"] == "in"
                  and m["body"].get("method") == "server/discover"), None)
    if asked is None:
        return None
    answered = next((m for m in seen if m["dir"] == "out"
                     and m["body"].get("id") == asked["body"].get("id")), None)
    return None if answered is None else answered["t"] - asked["t"]


def test_twenty_claude_code_starts_under_load(drive, shell_pane, tmp_path, busy_cores):
    if (why := agents.install("claude")) is not None:
        pytest.skip(f"claude not installed: {why}")
    shell_pane("bash")
    failures: list[str] = []
    for start in range(STARTS):
        log = tmp_path / f"stdio-{start}.jsonl"
        ran = drive("claude", [("list_sessions", {})], record=log)
        first = ran.first()
        if not any(name.startswith("mcp__muxport__") for name in first.tools()):
            failures.append(f"start {start}: the first request had no muxport tool")
        delay = discover_delay(log)
        if delay is None or delay > 0.5:
            failures.append(f"start {start}: server/discover answered after {delay} s")
        refused = [m["msg"] for m in messages(log) if m["dir"] == "out"
                   and (m["body"].get("error") or {}).get("code") == -32022]
        if refused:
            failures.append(f"start {start}: -32022: {refused[0][:200]}")
        handed = ran.stub.handed()
        if not any('"sessions"' in result for result in handed):
            failures.append(f"start {start}: list_sessions never reached the model: "
                            f"{json.dumps(handed)[:200]}")
    assert failures == [], "\n".join(failures)

"""The audit log: ``LIBTMUX_AUDIT=PATH|stderr`` writes one JSON line per tool call (time,
tool, target, outcome, error code), payloads as length and SHA-256 prefix, never in clear;
a new file is created with mode 0600.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from reliability_kit import RawLauncher

pytestmark = pytest.mark.timeout(60)
SECRET = "hunter2-SECRET-9f8e7d"


def calls(pane_id: str) -> list[tuple[str, dict[str, Any], str, str | None]]:
    """(tool, arguments, expected outcome, expected error code)."""
    return [
        ("list_sessions", {}, "ok", None),
        ("list_windows", {"session_name": SECRET}, "error", "not_found"),
        ("capture_pane", {"pane_id": "%999"}, "error", "not_found"),
        ("capture_pane", {"pane_id": SECRET}, "error", "invalid_argument"),
        ("search_panes", {"pattern": SECRET}, "ok", None),
        ("no_such_tool", {"x": SECRET}, "error", "tool_not_available"),
        ("capture_pane", {"pane_id": pane_id, "max_lines": 5}, "ok", None),
    ]


def check_lines(text: str, pane_id: str) -> None:
    assert SECRET not in text
    entries = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    expected = calls(pane_id)
    assert [e["tool"] for e in entries] == [c[0] for c in expected]
    for entry, (_tool, args, outcome, code) in zip(entries, expected, strict=True):
        assert {"time", "tool", "target", "outcome", "error_code"} <= set(entry), entry
        assert entry["outcome"] == outcome, entry
        assert entry["error_code"] == code, entry
        for key, value in args.items():
            if key.endswith("_id") and re.fullmatch(r"[%@$][0-9]{1,9}", str(value)):
                assert entry["target"][key] == value  # exact ids are written as they are
                continue
            text_value = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
            digest = (
                entry["payload"][key] if key in entry.get("payload", {}) else entry["target"][key]
            )
            assert digest["length"] == len(text_value), entry
            assert hashlib.sha256(text_value.encode()).hexdigest().startswith(digest["sha256"])
            assert len(digest["sha256"]) >= 12


async def test_audit_file_is_private_and_never_in_clear(stdio_client, shell_pane, sandbox):
    pane = shell_pane("bash")
    log = sandbox / "audit" / "calls.jsonl"
    log.parent.mkdir()
    async with stdio_client(toolsets=["inspect"], env={"LIBTMUX_AUDIT": str(log)}) as client:
        for tool, args, _outcome, _code in calls(pane.pane_id):
            await client.call_tool(tool, args)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    check_lines(log.read_text(), pane.pane_id)


async def test_audit_to_stderr(tmux_server, shell_pane, sandbox):
    pane = shell_pane("bash")
    errors = sandbox / "stderr.txt"
    raw = RawLauncher(
        {
            "LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
            "LIBTMUX_TOOLSETS": "inspect",
            "LIBTMUX_AUDIT": "stderr",
        },
        stderr=errors,
    )
    try:
        raw.initialize()
        for tool, args, _outcome, _code in calls(pane.pane_id):
            raw.read(raw.call(tool, args))
        assert raw.close() == 0
    finally:
        raw.kill()
    check_lines(errors.read_text(), pane.pane_id)


def test_new_audit_file_is_private_even_with_a_permissive_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from muxport._internal.audit import Audit

    log = tmp_path / "new.jsonl"
    monkeypatch.setenv("LIBTMUX_AUDIT", str(log))
    old = os.umask(0)
    try:
        for _ in range(2):  # the second time appends to the existing file
            audit = Audit.from_env()
            with audit.record("list_sessions", {}) as entry:
                entry.finish(False, None)
            audit.close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert len(log.read_text().splitlines()) == 2


def test_unwritable_audit_path_stops_startup_cleanly(tmp_path: Path) -> None:
    import subprocess

    from muxport.testing.clients import launcher

    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LIBTMUX_AUDIT": str(tmp_path / "missing" / "audit.jsonl"),
        "LIBTMUX_SOCKET_PATH": str(tmp_path / "tmux.sock"),
        "LIBTMUX_TOOLSETS": "inspect",
    }
    done = subprocess.run(
        [launcher()], input="", capture_output=True, text=True, env=env, timeout=30, check=False
    )
    assert done.returncode == 2, done.stderr
    assert "LIBTMUX_AUDIT" in done.stderr and "Traceback" not in done.stderr

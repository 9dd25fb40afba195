"""Fixtures of the reliability suite and its summary line.

Every test here runs against the test's own tmux server (the kit's ``tmux_server``,
a private socket) from a private working directory: fuzzed text may be typed into
shells, so nothing it writes can land in the repository or in $HOME.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from muxport.testing import TmuxServer
from muxport.testing.clients import launcher
from reliability_kit import STATS


@pytest.fixture
def sandbox(tmux_server: TmuxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private working directory and $HOME for every pane and launcher of the test."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(home)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HISTFILE", "/dev/null")
    tmux_server.cmd("set-environment", "-g", "HOME", str(home))
    tmux_server.cmd("set-environment", "-g", "HISTFILE", "/dev/null")
    # New panes (create_session, split_window, respawn_pane) start their shell here too,
    # whatever start directory a fuzzed call asked for.
    tmux_server.cmd(
        "set-option",
        "-g",
        "default-command",
        f"cd {home} 2>/dev/null; PS1='$ ' exec bash --noprofile --norc -i",
    )
    STATS.ran = True
    return home


def installed_toolsets() -> list[str]:
    """Every toolset installed in this environment (first and third party)."""
    out = subprocess.run(
        [launcher(), "tools", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    return list(json.loads(out.stdout)["selection"]["installed_toolsets"])


@pytest.fixture(scope="session")
def all_toolsets() -> list[str]:
    return installed_toolsets()


@pytest.fixture
def bystander() -> Iterator[TmuxServer]:
    """Another private tmux server that nothing in the test may touch."""
    server = TmuxServer()
    server.cmd("new-session", "-d", "-s", "bystander", "-x", "80", "-y", "24", "cat")
    try:
        yield server
    finally:
        server.kill()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not STATS.ran:
        return
    terminalreporter.write_sep("-", "muxport reliability")
    if STATS.calls_per_tool:
        per_tool = ", ".join(f"{k}={v}" for k, v in sorted(STATS.calls_per_tool.items()))
        terminalreporter.write_line(f"fuzz calls per tool: {per_tool}")
    if STATS.not_exercised:
        terminalreporter.write_line(
            "not exercised (tool not installed yet): " + ", ".join(sorted(STATS.not_exercised))
        )
    terminalreporter.write_line(
        f"reliability: {STATS.fuzz_calls} fuzz calls, {STATS.faults} faults injected, "
        f"{STATS.leaks} leaks found, {STATS.regex_checks} regex checks, "
        f"{STATS.stalls} tmux stalls, {STATS.protocol_cases} protocol cases, "
        f"{STATS.memory_checks} memory checks, {STATS.byte_checks} byte checks"
    )

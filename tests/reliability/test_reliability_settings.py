"""Settings are parsed and checked before tmux is touched: a bad value stops startup with
the variable, the value and the fix (exit 2, no traceback), and no tmux server is started."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from muxport.testing.clients import launcher
from reliability_kit import STATS

pytestmark = pytest.mark.timeout(120)
BAD = [
    ("LIBTMUX_AUDIT", "/nonexistent-dir/audit.log", "name a writable file"),
    ("LIBTMUX_MCP_WAIT_MAX_SECONDS", "soon", "a number from 1 to 600"),
    ("LIBTMUX_MCP_WAIT_MAX_SECONDS", "5000", "a number from 1 to 600"),
    ("MUXPORT_MAX_CALLS", "0", "an integer from 1"),
    ("MUXPORT_MAX_PENDING_BYTES", "lots", "an integer from"),
    ("MUXPORT_MAX_REQUEST_BYTES", "-1", "an integer from"),
    ("MUXPORT_MAX_ANSWER_BYTES", "100", "an integer from 8000"),
    ("LIBTMUX_TOOLSETS", "inspect,,manage", "LIBTMUX_TOOLSETS"),
]


def test_each_bad_setting_stops_startup_before_tmux(tmp_path: Path) -> None:
    for name, value, fix in BAD:
        tmpdir = tmp_path / f"tmux-{len(os.listdir(tmp_path))}"
        tmpdir.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
        env.update({"TMUX_TMPDIR": str(tmpdir), name: value})  # the default daemon lives here
        done = subprocess.run([launcher()], env=env, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL, check=False)
        STATS.faults += 1
        assert done.returncode == 2, (name, value, done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert name in done.stderr and fix in done.stderr, (name, done.stderr)
        if name != "LIBTMUX_TOOLSETS":
            assert value in done.stderr, done.stderr
        assert list(tmpdir.iterdir()) == [], f"{name}: tmux was touched before refusing"

"""Installing muxport leaves other projects' pytest alone: a tiny project with a plain
coroutine test behaves exactly as it does without muxport's plugin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from reliability_kit import STATS

pytestmark = pytest.mark.timeout(120)
PROJECT = {
    "test_plain.py": "async def test_plain_coroutine():\n    assert False, 'should not run'\n\n"
                     "def test_sync():\n    assert True\n",
    "pytest.ini": "[pytest]\n",
}


def run(project: Path, *args: str) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--rootdir", str(project), *args, str(project)],
        capture_output=True, text=True, timeout=100, cwd=project, check=False,
    )
    lines = [line for line in done.stdout.splitlines() if (" in " in line and "passed" in line)
             or "failed" in line or "skipped" in line]
    return (lines[-1].split(" in ")[0] if lines else done.stdout[-300:]), done.stdout


def test_a_plain_coroutine_test_elsewhere_is_untouched(tmp_path):
    for name, text in PROJECT.items():
        (tmp_path / name).write_text(text)
    with_muxport, output = run(tmp_path)
    without, _ = run(tmp_path, "-p", "no:muxport")
    STATS.protocol_cases += 1
    assert with_muxport == without, (with_muxport, without)
    assert "should not run" not in output  # never run by muxport's plugin as an anyio test

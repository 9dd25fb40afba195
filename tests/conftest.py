"""Shared helpers of the cross-distribution tests: the installed launcher as a plain
subprocess, a tmux wrapper that records every invocation, and the installed surface."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from muxport.testing.clients import launcher

FIRST_PARTY = ("inspect", "manage", "execute", "teardown")


def time_exit(process: subprocess.Popen[bytes], end: Callable[[], object]) -> tuple[int, float]:
    """Call ``end``; its exit status and the seconds until ``process`` exits (seen at once
    through a pidfd, not by ``wait``'s polling, which adds up to 50 ms)."""
    exited = os.pidfd_open(process.pid)
    try:
        start = time.monotonic()
        end()
        select.select([exited], [], [], 10)
        elapsed = time.monotonic() - start
    finally:
        os.close(exited)
    return process.wait(timeout=10), elapsed


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without selection, socket or tmux variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    env.update(extra or {})
    return env


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def muxport_cli() -> Run:
    """Run the installed launcher to completion: ``muxport_cli("tools", "--json", env={...})``."""

    def run(*args: str, env: dict[str, str] | None = None,
            timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run([launcher(), *args], env=clean_env(env), capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)

    return run


@dataclass
class RecordingTmux:
    """A tmux wrapper script that appends each invocation's argv to ``log`` and runs tmux."""

    path: str
    log: Path

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def recording_tmux() -> Iterator[RecordingTmux]:
    real = shutil.which("tmux")
    if real is None:
        pytest.skip("tmux is not installed")
    directory = Path(tempfile.mkdtemp(prefix="muxport-rec-"))
    log = directory / "calls.log"
    wrapper = directory / "tmux"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    try:
        yield RecordingTmux(str(wrapper), log)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def toolset_of() -> dict[str, str]:
    """Every installed tool -> its toolset, from ``muxport tools --json`` (never hard-coded)."""

    def tools_json(*args: str) -> dict[str, object]:
        done = subprocess.run([launcher(), "tools", "--json", *args], env=clean_env(),
                              capture_output=True, text=True, timeout=30, check=True)
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    installed = tools_json()["selection"]["installed_toolsets"]  # type: ignore[index]
    every = tools_json("--toolsets", ",".join(installed))
    return {row["name"]: row["toolset"] for row in every["tools"]}  # type: ignore[union-attr]


def of_toolsets(toolset_of: dict[str, str], *toolsets: str) -> set[str]:
    return {name for name, ts in toolset_of.items() if ts in toolsets}


@pytest.fixture
def tools_in() -> Callable[..., set[str]]:
    """``tools_in(toolset_of, "inspect", "manage")``: the installed tools of those toolsets."""
    return of_toolsets


@pytest.fixture
def fake_distribution(tmp_path: Path) -> Callable[[str, str], Path]:
    """``fake_distribution("badrow", source)``: a directory to put on PYTHONPATH holding module
    ``<name>_plugin`` and a ``<name>-0.1.dist-info`` whose entry point makes it toolset ``name``
    (a third-party toolset installed without pip)."""

    def make(name: str, source: str) -> Path:
        root = tmp_path / f"site-{name}"
        info = root / f"{name}-0.1.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[muxport.toolsets]\n{name} = {name}_plugin\n")
        (root / f"{name}_plugin.py").write_text(source)
        return root

    return make

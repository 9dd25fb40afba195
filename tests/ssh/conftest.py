"""Fixtures of the ssh tests (issue 23): a far host on 127.0.0.1 (the kit's
``muxport.testing.farhost``: a test user, a real sshd of its own), made once per module
and removed afterwards; its tmux servers and processes are killed after every test, so
each test's launcher starts the far daemon anew. Without root, or without sshd, they skip."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from muxport.testing.farhost import FarHost, far_host


@pytest.fixture(scope="module")
def far_module() -> Iterator[FarHost]:
    if os.geteuid() != 0:
        pytest.skip("ssh tests create a user and start sshd: they run as root (CI does)")
    for program in ("useradd", "runuser", "/usr/sbin/sshd", "ssh", "ssh-keygen", "tmux"):
        if shutil.which(program) is None and not Path(program).exists():
            pytest.skip(f"{program} is not installed")
    with far_host() as host:
        yield host


@pytest.fixture
def far(far_module: FarHost) -> Iterator[FarHost]:
    """The module's far host, with no tmux server running there yet."""
    far_module.reset()
    yield far_module
    far_module.reset()


ARMED_BOUND = 20.0  # seconds for a waiting call to arm and answer once ``then`` has run


async def _armed_call(
    client: Any, tool: str, arguments: dict[str, Any], then: Callable[[], object],
    word: str = "",
) -> Any:
    """Call ``tool``; once it reports its wait armed (its first progress notification,
    holding ``word`` if given), run ``then``; the call's result (bounded)."""
    armed = anyio.Event()
    box: dict[str, Any] = {}

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if word in (message or ""):
            armed.set()

    async def call() -> None:
        box["result"] = await client.call_tool(tool, arguments, progress_callback=progress)

    with anyio.fail_after(ARMED_BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await armed.wait()
            then()
    return box["result"]


@pytest.fixture
def armed_call() -> Callable[..., Any]:
    """``await armed_call(client, "wait_for_text", {...}, then)``."""
    return _armed_call

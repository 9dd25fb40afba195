"""pytest fixtures for toolset authors (entry point ``pytest11``: installed with muxport).

- ``tmux_server``: a real tmux server on a private socket, killed afterwards.
- ``shell_pane``: a factory, ``shell_pane("zsh", width=40)``, for a ready shell pane.
- ``mcp_client``: a factory for an in-process client: ``async with mcp_client(toolsets=[...]) as c``.
- ``stdio_client``: a factory for the installed launcher over real stdio on ``tmux_server``.
- ``fake_tmux``: a fake transport for unit tests of pure logic.

Coroutine tests run on anyio (asyncio) without a marker; each gets a timeout.
"""

from __future__ import annotations

import inspect
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from muxport.testing.clients import in_process_client, selection_env
from muxport.testing.clients import stdio_client as _stdio_client
from muxport.testing.fake import FakeTmux
from muxport.testing.server import ShellPane, TmuxServer


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        func = getattr(item, "function", None)
        if func is not None and inspect.iscoroutinefunction(func):
            item.add_marker(pytest.mark.anyio)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tmux_server() -> Iterator[TmuxServer]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    server = TmuxServer()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def shell_pane(tmux_server: TmuxServer) -> Callable[..., ShellPane]:
    def make(shell: str = "bash", width: int = 80, height: int = 24) -> ShellPane:
        if shell != "sh" and shutil.which(shell) is None:
            pytest.skip(f"{shell} is not installed")
        return tmux_server.shell_pane(shell, width, height)

    return make


@pytest.fixture
def mcp_client(tmux_server: TmuxServer) -> Callable[..., Any]:
    def make(**kwargs: Any) -> Any:
        return in_process_client(tmux_server.socket_path, **kwargs)

    return make


@pytest.fixture
def stdio_client(tmux_server: TmuxServer) -> Callable[..., Any]:
    def make(
        toolsets: list[str] | None = None,
        tools: tuple[str, ...] = (),
        exclude: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> Any:
        full = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
        full.update(selection_env(toolsets, tools, exclude))
        full.update(env or {})
        return _stdio_client(full)

    return make


@pytest.fixture
def fake_tmux() -> FakeTmux:
    return FakeTmux()

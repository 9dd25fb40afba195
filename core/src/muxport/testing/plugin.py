"""pytest fixtures for toolset authors (entry point ``pytest11``: installed with muxport).

- ``tmux_server``: a real tmux server on a private socket, killed afterwards.
- ``shell_pane``: a factory, ``shell_pane("zsh", width=40)``, for a ready shell pane.
- ``mcp_client``: an in-process client factory: ``async with mcp_client(toolsets=[...]) as c``.
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


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    # Mark coroutine tests at collection, before parametrization: asking for
    # ``anyio_backend`` here keeps ``@pytest.mark.parametrize`` ids and values intact
    # (marking them later, in collection_modifyitems, makes anyio rebuild the items
    # without their parameters).
    is_test = isinstance(collector, pytest.Module | pytest.Class) and collector.istestfunction(
        obj, name
    )
    if is_test and inspect.iscoroutinefunction(obj):
        pytest.mark.usefixtures("anyio_backend")(pytest.mark.anyio(obj))


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

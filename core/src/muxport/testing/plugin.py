"""pytest fixtures for toolset authors (entry point ``pytest11``: installed with muxport).

- ``tmux_server``: a real tmux server on a private socket, killed afterwards.
- ``shell_pane``: a factory, ``shell_pane("zsh", width=40)``, for a ready shell pane.
- ``mcp_client``: an in-process client factory: ``async with mcp_client(toolsets=[...]) as c``.
- ``stdio_client``: a factory for the installed launcher over real stdio on ``tmux_server``.
- ``fake_tmux``: a fake transport for unit tests of pure logic.

``--tmux-bin=PATH`` (or ``MUXPORT_TEST_TMUX=PATH``) runs the tests against another tmux
binary: its directory goes first on ``PATH``, so the test servers, the forked clients and
the launchers all find it as ``tmux`` (docs/tmux-facts.md, "Versions").

Coroutine tests that ask for one of these fixtures run on anyio (asyncio) without a
marker. Nothing else in a project changes: other tests, coroutine or not, are left to
whatever that project uses (installing muxport must not change pytest for everyone).
"""

from __future__ import annotations

import inspect
import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from muxport.testing.clients import in_process_client, selection_env
from muxport.testing.clients import stdio_client as _stdio_client
from muxport.testing.fake import FakeTmux
from muxport.testing.server import ShellPane, TmuxServer

KIT_FIXTURES = frozenset({"tmux_server", "shell_pane", "mcp_client", "stdio_client", "fake_tmux"})


def uses_kit(obj: object) -> bool:
    """Whether a test function asks for one of the kit's fixtures by name."""
    try:
        names = inspect.signature(obj).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return not KIT_FIXTURES.isdisjoint(names)


def mark_anyio(collector: pytest.Collector, name: str, obj: object, every: bool) -> None:
    """Mark a coroutine test to run on anyio: every one, or only those using the kit.

    Marked at collection, before parametrization: asking for ``anyio_backend`` here keeps
    ``@pytest.mark.parametrize`` ids and values intact (marking them later, in
    collection_modifyitems, makes anyio rebuild the items without their parameters)."""
    is_test = isinstance(collector, pytest.Module | pytest.Class) and collector.istestfunction(
        obj, name
    )
    if is_test and inspect.iscoroutinefunction(obj) and (every or uses_kit(obj)):
        pytest.mark.usefixtures("anyio_backend")(pytest.mark.anyio(obj))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--tmux-bin", default=os.environ.get("MUXPORT_TEST_TMUX") or None,
        help="the tmux binary to test against (default: tmux on PATH; env MUXPORT_TEST_TMUX)",
    )


def pytest_configure(config: pytest.Config) -> None:
    binary = config.getoption("--tmux-bin")
    if not binary:
        return
    found = shutil.which(binary)
    if found is None or os.path.basename(found) != "tmux":
        raise pytest.UsageError(f"--tmux-bin {binary}: not an executable named tmux")
    folder = os.path.dirname(os.path.abspath(found))
    os.environ["PATH"] = folder + os.pathsep + os.environ.get("PATH", "")


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    mark_anyio(collector, name, obj, every=False)


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

"""This repository's own policy (not the installed kit's): every coroutine test here runs on
anyio (asyncio), whether or not it asks for a kit fixture."""

from __future__ import annotations

import pytest
from muxport.testing.plugin import mark_anyio


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    mark_anyio(collector, name, obj, every=True)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"

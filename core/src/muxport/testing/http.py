"""``muxport --http`` for tests: the installed launcher serving a private tmux server on
127.0.0.1 (a free port), and the SDK's streamable HTTP client with its bearer token."""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from muxport.testing.clients import launcher
from muxport.testing.waiting import eventually_blocking

__all__ = ["HttpServer", "http_client", "serving_http"]
_URL = re.compile(r"over HTTP at (https?://\S+/mcp)")


@dataclass
class HttpServer:
    url: str
    token: str
    process: subprocess.Popen[bytes]
    errlog: Path

    def stderr(self) -> str:
        return self.errlog.read_text(errors="replace")


@contextmanager
def serving_http(
    socket_path: str, env: Mapping[str, str] | None = None, args: Sequence[str] = (),
    toolsets: str = "inspect,manage,execute,teardown", own_token: bool = True,
) -> Iterator[HttpServer]:
    """The launcher with ``--http 127.0.0.1:0`` and a token file of its own (or, without
    ``own_token``, the one it makes under ``XDG_STATE_HOME``); stopped with SIGTERM."""
    with tempfile.TemporaryDirectory(prefix="mx-http-") as folder:
        token = secrets.token_urlsafe(32)
        token_file = Path(folder, "token")
        token_file.write_text(token + "\n")
        token_file.chmod(0o600)
        full = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
        full.update({"LIBTMUX_TOOLSETS": toolsets, "XDG_STATE_HOME": folder, **(env or {})})
        errlog = Path(folder, "stderr")
        with errlog.open("wb") as err:
            process = subprocess.Popen(
                [launcher(), "--http", "127.0.0.1:0", "--socket", socket_path,
                 *(["--http-token-file", str(token_file)] if own_token else []), *args],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=full,
            )
        try:
            found = eventually_blocking(
                lambda: _URL.search(errlog.read_text(errors="replace")) or process.poll(),
                what="the startup line", within=30)
            if not isinstance(found, re.Match):
                raise RuntimeError(f"muxport --http exited: {errlog.read_text()}")
            if not own_token:
                made = Path(full["XDG_STATE_HOME"], "muxport", "http-token")
                token = made.read_text().strip()
            yield HttpServer(found.group(1), token, process, errlog)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@asynccontextmanager
async def http_client(
    url: str, token: str | None, mode: str = "legacy", headers: Mapping[str, str] | None = None,
) -> AsyncIterator[Client]:
    """The SDK's ``Client`` over streamable HTTP with ``Authorization: Bearer token``."""
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    # one connection per call in flight (each answer streams on its own POST), plus the
    # session's GET stream: httpx's default pool (100) would queue the 100th concurrent call
    limits = httpx2.Limits(max_connections=None, max_keepalive_connections=100)
    async with httpx2.AsyncClient(headers=sent, timeout=httpx2.Timeout(30, read=120),
                                  limits=limits) as web:
        async with Client(streamable_http_client(url, http_client=web), mode=mode) as client:
            yield client

"""A reverse proxy on 127.0.0.1 that adds ``Authorization: Bearer TOKEN`` to every request
it forwards, streaming the answer back (server-sent events included): for a client that
cannot send a header (the conformance suite tests a server by URL alone), as a TLS
reverse proxy in front of muxport does for remote clients (docs/http.md)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx2
import uvicorn
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

HOP = {"content-length", "connection", "transfer-encoding", "keep-alive"}  # Host is kept


class Quiet(uvicorn.Server):
    """uvicorn without its signal handlers (pytest's stay)."""

    def capture_signals(self) -> contextlib.nullcontext[None]:  # type: ignore[override]
        return contextlib.nullcontext()


class Proxy:
    """Listening from the start (its port is known to name it to muxport's Host and Origin
    checks); forwards to ``upstream`` once that is set."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.upstream = ""
        self.token = ""

    def names(self) -> list[str]:
        """muxport's arguments for a client that reaches it through this proxy."""
        hosts = [f"127.0.0.1:{self.port}", f"localhost:{self.port}"]
        return [arg for host in hosts for arg in (
            "--http-allow-host", host, "--http-allow-origin", f"http://{host}")]


@asynccontextmanager
async def token_proxy() -> AsyncIterator[Proxy]:
    """Serve the proxy while the block runs."""
    proxy = Proxy()
    web = httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=None))

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        headers["authorization"] = f"Bearer {proxy.token}"
        forwarded = web.build_request(
            request.method, proxy.upstream, headers=headers,
            content=await request.body(), params=request.query_params)
        answer = await web.send(forwarded, stream=True)
        response = StreamingResponse(
            answer.aiter_raw(), status_code=answer.status_code,
            headers={k: v for k, v in answer.headers.items() if k.lower() not in HOP},
            background=BackgroundTask(answer.aclose))
        await response(scope, receive, send)

    server = Quiet(uvicorn.Config(app, lifespan="off", log_config=None, access_log=False,
                                  log_level="warning"))
    async with web, anyio.create_task_group() as group:
        group.start_soon(server.serve, [proxy.sock])
        try:
            yield proxy
        finally:
            server.should_exit = server.force_exit = True
            group.cancel_scope.cancel()
            proxy.sock.close()

"""Serving MCP over streamable HTTP (docs/http.md): uvicorn on a socket bound here (so a
refused bind stops startup, and port 0 is told), the SDK's session manager, one MCP
session per client, every session on the one ``MuxportServer`` and its tmux server.

SIGINT and SIGTERM stay the launcher's (``Shutdown.watch``): uvicorn's own handlers are
not installed. At a signal the listener and every connection close at once, the
sessions' calls are cancelled, and the toolboxes and tmux clients close within
``SIGNAL_CLOSE``, as over stdio."""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
from collections.abc import Callable, Iterator

import anyio
import uvicorn
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from muxport._internal import VERSION
from muxport._internal.app import App
from muxport._internal.http_app import PATH, StaticToken, application, security
from muxport._internal.http_config import HttpConfig
from muxport._internal.server import MuxportServer
from muxport._internal.settings import Limits
from muxport._internal.shutdown import SIGNAL_CLOSE

log = logging.getLogger(__name__)


class Uvicorn(uvicorn.Server):
    """uvicorn without its signal handlers (the launcher's watcher ends serving), telling
    when it listens."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = anyio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def concurrency(limits: Limits, config: HttpConfig) -> int:
    """Connections and requests in flight at once (docs/http.md, "Limits")."""
    return limits.max_calls + 2 * config.max_sessions


async def end_sessions(manager: StreamableHTTPSessionManager) -> None:
    """Close every session's streams at a signal. The signal cancels the transports' routers
    with everything else; the SDK then answers each call in flight with "Connection closed"
    into a stream no one reads any more, and waits a second for each (the exit is due
    within one): closed, that write fails at once. The SDK keeps no public list of its
    sessions (``tests/test_http_limits.py`` holds the exit time)."""
    sessions: dict[str, StreamableHTTPServerTransport] = getattr(
        manager, "_server_instances", {})
    for transport in list(sessions.values()):
        await transport.terminate()


def startup_line(config: HttpConfig, port: int) -> str:
    """Where to connect and how exposed it is; the token's file and id, never the token."""
    return (f"over HTTP at {config.url(port)} ({config.exposure()}); bearer token in "
            f"{config.token_file} (id {config.token_id})")


async def serve_http(
    server: MuxportServer, config: HttpConfig, limits: Limits, say: Callable[[int], None],
) -> int:
    """Serve until SIGINT or SIGTERM; the exit status (128 + the signal). ``say`` is told
    the bound port once clients can connect."""
    sock = config.listener
    port = sock.getsockname()[1]
    settings = security(config, port)
    manager = StreamableHTTPSessionManager(
        app=server.lowlevel,
        security_settings=settings,
        max_request_body_size=limits.max_request_bytes,
        session_idle_timeout=config.idle_seconds,
        max_sessions=config.max_sessions,
    )
    app = application(manager, StaticToken(config.token), settings)
    cert, key = config.tls or (None, None)
    web = Uvicorn(uvicorn.Config(
        app, lifespan="off", log_config=None, access_log=False, log_level="warning",
        ssl_certfile=cert, ssl_keyfile=key, timeout_graceful_shutdown=1,
        h11_max_incomplete_event_size=limits.max_request_bytes,
        # what is in flight, as over stdio (MUXPORT_MAX_CALLS), plus two connections per
        # session (its GET stream, and one to spare): one more is answered 503 at once
        limit_concurrency=concurrency(limits, config),
    ))
    web.config.load()  # the TLS files were checked with the options (http_config.py)
    shutdown = server.services.shutdown
    try:
        async with anyio.create_task_group() as group:
            server.services.task_group = group
            group.start_soon(shutdown.on_signal, group.cancel_scope)
            async with manager.run():
                group.start_soon(web.serve, [sock])
                await web.ready.wait()
                say(port)
                try:
                    await anyio.sleep_forever()
                finally:
                    with anyio.CancelScope(shield=True), anyio.move_on_after(SIGNAL_CLOSE):
                        await end_sessions(manager)
    finally:
        web.should_exit = web.force_exit = True
        with anyio.CancelScope(shield=True), anyio.move_on_after(SIGNAL_CLOSE):
            if web.started:
                await web.shutdown([sock])
            await server.close()
        sock.close()
    return 128 + shutdown.signal if shutdown.signal else 0


async def served_http(started: App, config: HttpConfig, limits: Limits) -> int:
    """The launcher's serving over HTTP: the startup line goes to stderr (no client reads
    it there), naming the URL, the exposure and the token's file, never the token."""
    conn = started.connection

    def say(port: int) -> None:
        print(f"muxport {VERSION}: serving {conn.socket_path} ({conn.state}, {conn.version}) "
              f"{startup_line(config, port)}; {len(started.surface.specs)} tools; watch it "
              f"with: {conn.attach_command}", file=sys.stderr, flush=True)

    return await serve_http(started.server, config, limits, say)


__all__ = ["PATH", "serve_http", "served_http", "startup_line"]

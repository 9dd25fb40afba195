"""The ASGI application of ``muxport --http`` (docs/http.md): the SDK's streamable HTTP
session manager on ``/mcp``, behind the SDK's bearer authentication and, outside it, a
guard that refuses a wrong Host or Origin (DNS rebinding) and a token in the URL before
anything else is read."""

from __future__ import annotations

import hmac
import socket
from urllib.parse import parse_qsl

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    BearerAuthBackend,
    RequireAuthMiddleware,
)
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from muxport._internal.audit import CALLER
from muxport._internal.http_config import HttpConfig, is_loopback, token_id

PATH = "/mcp"
# Query parameters that name a credential: refused whatever they hold (the MCP
# authorization spec: a token never goes in the URL, where logs and proxies keep it).
TOKEN_PARAMETERS = frozenset({"access_token", "token", "bearer", "auth", "authorization",
                              "api_key", "apikey", "key"})


class StaticToken:
    """The SDK's ``TokenVerifier`` for the one configured token, compared in constant time.
    The principal is the token's id, so the SDK's "a session answers only the credential
    that opened it" works, and the audit log names the id, never the token."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()
        self.id = token_id(token)

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return AccessToken(token=self.id, client_id=self.id, scopes=[])


LOOPBACK = ["127.0.0.1", "localhost", "[::1]"]


def own_hosts(config: HttpConfig, port: int) -> list[str]:
    """The Host values of the bound address: every loopback name for a loopback bind; for
    a wildcard bind (0.0.0.0, ::) those and this machine's host names (other names, and
    its addresses, are named with --http-allow-host)."""
    if is_loopback(config.host):
        names = LOOPBACK
    elif config.host in ("0.0.0.0", "::"):
        names = list(dict.fromkeys([*LOOPBACK, socket.gethostname(), socket.getfqdn()]))
    else:
        names = [f"[{config.host}]" if ":" in config.host else config.host]
    return [f"{name}:{port}" for name in names]


def security(config: HttpConfig, port: int) -> TransportSecuritySettings:
    """The Host values served: the bound address and what the operator added (a reverse
    proxy's public name). MCP clients send no Origin; a browser page always does, and only
    muxport's own origin (which serves no page) or one the operator named is let through: a
    page of another site, or of another local port, is refused (docs/http.md)."""
    scheme = "https" if config.tls else "http"
    own = own_hosts(config, port)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=own + list(config.allowed_hosts),
        allowed_origins=[f"{scheme}://{host}" for host in own] + list(config.allowed_origins),
    )


def refusal(status: int, error: str, text: str) -> JSONResponse:
    return JSONResponse(
        {"error": error, "error_description": text}, status_code=status,
        headers={"WWW-Authenticate": f'Bearer error="{error}", error_description="{text}"'},
    )


class Guard:
    """Outermost: Host and Origin (421, 403), then a credential in the query string (400),
    before authentication reads anything."""

    def __init__(self, app: ASGIApp, settings: TransportSecuritySettings) -> None:
        self.app = app
        self.checks = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refused = await self.checks.validate_request(request, is_post=False)
        if refused is None and self.token_in_url(scope):
            refused = refusal(400, "invalid_request", (
                "a token in the URL is refused: send it as Authorization: Bearer TOKEN; the "
                "URL may be logged, so replace the token if it was the real one"))
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def token_in_url(scope: Scope) -> bool:
        query = scope.get("query_string", b"").decode("latin-1")
        return any(name.lower() in TOKEN_PARAMETERS
                   for name, _ in parse_qsl(query, keep_blank_values=True))


def served(manager: StreamableHTTPSessionManager) -> ASGIApp:
    """The session manager, with the caller's token id set for the audit log."""

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        mark = CALLER.set(user.access_token.client_id
                          if isinstance(user, AuthenticatedUser) else None)
        try:
            await manager.handle_request(scope, receive, send)
        finally:
            CALLER.reset(mark)

    return endpoint


def application(
    manager: StreamableHTTPSessionManager, verifier: StaticToken,
    settings: TransportSecuritySettings,
) -> ASGIApp:
    """``/mcp`` behind the guard and the bearer check (401 with ``WWW-Authenticate``)."""
    app = Starlette(
        routes=[Route(PATH, endpoint=RequireAuthMiddleware(served(manager), []))],
        middleware=[
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier)),
            Middleware(AuthContextMiddleware),
        ],
    )
    return Guard(app, settings)

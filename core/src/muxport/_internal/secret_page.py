"""The one-time page where a person types a secret (docs/asking.md, "Secrets").

A secret never passes through the model: muxport serves one page on 127.0.0.1 (a random
path, a short lifetime, one use), the client opens it for the person (URL-mode
elicitation), and what they type reaches the tool that asked, in memory only. The page
refuses another host name (DNS rebinding), another origin (a form posted from another
site), a second use and a late one. Nothing here logs what a request carries.
"""

from __future__ import annotations

import hmac
import html
import secrets
import time
from urllib.parse import parse_qs

import anyio
from anyio.abc import SocketAttribute, SocketStream, TaskGroup
from anyio.streams.stapled import MultiListener

HEAD_LIMIT = 8192
BODY_LIMIT = 4096  # a password, url-encoded, with room to spare
READ_SECONDS = 10.0


class Secret:
    """What the person typed; shown as ``<secret>`` by ``repr`` and ``str``."""

    def __init__(self, value: str) -> None:
        self._value: str | None = value

    def reveal(self) -> str:
        if self._value is None:
            raise ValueError("the secret was already used and dropped")
        return self._value

    def drop(self) -> None:
        self._value = None

    def __repr__(self) -> str:
        return "<secret>"

    __str__ = __repr__


class SecretPage:
    """One page for one secret; ``url`` once ``start`` returned."""

    def __init__(self, prompt: str, seconds: float) -> None:
        self.prompt = prompt
        self.deadline = time.monotonic() + seconds
        self.path = "/" + secrets.token_urlsafe(32)
        self.nonce = secrets.token_urlsafe(16)  # the form's own field: posted from this page
        self.port = 0
        self.used = False
        self.secret: Secret | None = None
        self.done = anyio.Event()
        self._listener: MultiListener[SocketStream] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return self.origin + self.path

    async def start(self, group: TaskGroup) -> None:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
        self._listener = listener
        self.port = listener.listeners[0].extra(SocketAttribute.local_port)
        group.start_soon(self._serve)

    async def _serve(self) -> None:
        assert self._listener is not None
        try:
            with anyio.move_on_after(max(0.0, self.deadline - time.monotonic())):
                async with anyio.create_task_group() as group:
                    group.start_soon(self._listener.serve, self._one)
                    await self.done.wait()
                    group.cancel_scope.cancel()
        finally:
            self.done.set()
            with anyio.CancelScope(shield=True):
                await self._listener.aclose()

    async def close(self) -> None:
        """End the page (its listener closes in its own task)."""
        self.done.set()

    async def received(self, within: float) -> Secret | None:
        """The secret once the person sent it; None when the page ended without it."""
        with anyio.move_on_after(max(0.0, min(within, self.deadline - time.monotonic()))):
            await self.done.wait()
        return self.secret

    async def _one(self, stream: SocketStream) -> None:
        async with stream:
            try:
                with anyio.fail_after(READ_SECONDS):
                    status, body = self._answer(*await _read(stream))
            except Exception:  # malformed, slow or cut short: never the secret in a log
                status, body = "400 Bad Request", "bad request"
            await _write(stream, status, body)

    def _answer(self, method: str, path: str, headers: dict[str, str],
                body: bytes) -> tuple[str, str]:
        if headers.get("host") != f"127.0.0.1:{self.port}":
            return "421 Misdirected Request", "this page answers only at 127.0.0.1"
        if not hmac.compare_digest(path.encode(), self.path.encode()):
            return "404 Not Found", "no such page"
        if self.used or time.monotonic() > self.deadline:
            return "410 Gone", "this page was used or has expired; it serves once"
        if method == "GET":
            return "200 OK", self._form()
        if method != "POST":
            return "405 Method Not Allowed", "GET or POST"
        if headers.get("origin", self.origin) != self.origin or headers.get(
                "sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return "403 Forbidden", "only this page may send the secret"
        fields = parse_qs(body.decode("utf-8", "strict"), keep_blank_values=True)
        nonce, value = fields.get("nonce", [""])[0], fields.get("secret", [None])[0]
        if not hmac.compare_digest(nonce.encode(), self.nonce.encode()) or value is None:
            return "403 Forbidden", "only this page may send the secret"
        self.used = True
        self.secret = Secret(value)
        self.done.set()
        return "200 OK", "<p>Received. muxport types it into the pane now; close this page.</p>"

    def _form(self) -> str:
        return (
            "<!doctype html><meta charset=utf-8><title>muxport: a secret</title>"
            f"<p>{html.escape(self.prompt)}</p>"
            f"<form method=post action='{self.path}'>"
            f"<input type=hidden name=nonce value='{self.nonce}'>"
            "<input type=password name=secret autocomplete=off autofocus>"
            "<button type=submit>Send to the pane</button></form>"
        )


async def _read(stream: SocketStream) -> tuple[str, str, dict[str, str], bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_LIMIT:
            raise ValueError("head too large")
        data += await stream.receive(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    if not 0 <= length <= BODY_LIMIT:
        raise ValueError("body too large")
    while len(body) < length:
        body += await stream.receive(4096)
    return method, path, headers, body[:length]


async def _write(stream: SocketStream, status: str, body: str) -> None:
    data = body.encode()
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\nCache-Control: no-store\r\n"
        "Referrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n"
        "Content-Security-Policy: default-src 'none'; form-action 'self'; "
        "frame-ancestors 'none'\r\n\r\n"
    )
    try:
        await stream.send(head.encode() + data)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass

"""A scripted person behind an MCP client (docs/asking.md): the SDK's ``Client`` over the
installed launcher's real stdio, declaring elicitation (or not) and answering each question
as told: ``accept``, ``decline``, ``cancel``, or ``never`` (sits on it past every deadline).
The wire can be recorded (``stdio_recorder``) to search it afterwards.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client as _stdio_transport

from muxport.testing import stdio_recorder
from muxport.testing.clients import launcher


@dataclass
class Person:
    """Answers the questions in order from ``answers`` (the last one repeats); ``asked``
    holds every question's parameters as the client received them."""

    answers: list[str]
    asked: list[types.ElicitRequestParams] = field(default_factory=list)
    late_after: float = 3600.0  # how long ``never`` waits before it answers accept anyway
    on_url: Any = None  # async (url) -> None: what the person does on a URL-mode page

    async def __call__(self, context: Any, params: types.ElicitRequestParams
                       ) -> types.ElicitResult:
        answer = self.answers[min(len(self.asked), len(self.answers) - 1)]
        self.asked.append(params)
        if answer == "never":
            await anyio.sleep(self.late_after)
            answer = "accept"
        if isinstance(params, types.ElicitRequestURLParams) and answer == "accept":
            if self.on_url is not None:
                await self.on_url(params.url)
        return types.ElicitResult(action=answer)


@asynccontextmanager
async def person_client(
    env: Mapping[str, str], person: Person | None, mode: str = "legacy",
    record: Path | None = None, stderr: Path | None = None,
) -> AsyncIterator[Client]:
    """The launcher over stdio with ``env`` (TMUX* and LIBTMUX_* of this process left out);
    the client declares elicitation only when ``person`` is given. ``record``: the wire,
    one JSON line per message; ``stderr``: the server's log."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    full.update(env)
    command, args = launcher(), []
    if record is not None:
        command, args = sys.executable, [stdio_recorder.__file__, str(record), launcher()]
    params = StdioServerParameters(command=command, args=args, env=full)
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            async with Client(_stdio_transport(params, errlog=errlog), mode=mode,
                              elicitation_callback=person) as client:
                await client.list_tools()
                yield client
        except BaseException:
            errlog.seek(0)
            sys.stderr.write(f"muxport stderr:\n{errlog.read()}\n")
            raise
        finally:
            if stderr is not None:
                errlog.seek(0)
                await anyio.Path(stderr).write_text(errlog.read())


async def http(url: str, method: str = "GET", body: str = "",
               headers: Mapping[str, str] | None = None) -> tuple[int, str]:
    """One HTTP/1.1 request as a browser sends it (Host, and what ``headers`` add); the
    status and the body."""
    rest = url.removeprefix("http://")
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.partition(":")
    data = body.encode()
    head = {"Host": hostport, "User-Agent": "muxport-test-browser", "Connection": "close",
            **({"Content-Type": "application/x-www-form-urlencoded",
                "Content-Length": str(len(data))} if method == "POST" else {}),
            **(headers or {})}
    request = f"{method} /{path} HTTP/1.1\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n"
    with anyio.fail_after(10):
        async with await anyio.connect_tcp(host, int(port)) as stream:
            await stream.send(request.encode() + data)
            got = b""
            try:
                while True:
                    got += await stream.receive()
            except anyio.EndOfStream:
                pass
    status_line, _, rest_ = got.partition(b"\r\n")
    return int(status_line.split()[1]), rest_.partition(b"\r\n\r\n")[2].decode()


async def fill_in(url: str, secret: str) -> tuple[int, int]:
    """What a person does on the page: open it, type ``secret``, submit; both statuses."""
    from urllib.parse import quote

    opened, page = await http(url)
    nonce = page.split("name=nonce value='", 1)[1].split("'", 1)[0] if opened == 200 else ""
    origin = url.split("/", 3)
    sent, _ = await http(url, "POST", f"nonce={quote(nonce)}&secret={quote(secret)}",
                         {"Origin": f"{origin[0]}//{origin[2]}", "Sec-Fetch-Site": "same-origin"})
    return opened, sent

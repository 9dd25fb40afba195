"""How asking the person (asking.py) rides the MCP wire, in both protocol eras
(docs/asking.md, "The two eras").

- 2025-11-25 (the ``initialize`` handshake): an ``elicitation/create`` request to the
  client, related to the tool call, while the call waits (the SDK's ``elicit_form``).
- 2026-07-28 (stateless): the call ends with an ``input_required`` result holding the same
  form request and a sealed ``requestState``; the client asks the person and retries the
  same call with the answer. The state is sealed here (HMAC under a key of this process):
  it names the question, so an answer counts only for the question asked, and when it was
  asked, so an answer after the deadline counts as none.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from muxport._internal.asking import Action, Asking, NeedsInput, call_digest
from muxport._internal.budgets import PROGRESS_EVERY

ASK_KEY = "muxport/ask"
# Nothing to fill in: the question is a yes or no, said by accept or decline.
CONFIRM_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def declared(ctx: ServerRequestContext[Any]) -> tuple[bool, bool]:
    """(form, url): the elicitation modes the client declared. An empty ``elicitation``
    object means form mode (the specification's rule for clients older than modes)."""
    caps = ctx.session.client_capabilities
    elicitation = caps.elicitation if caps is not None else None
    if elicitation is None:
        return False, False
    url = elicitation.url is not None
    return elicitation.form is not None or not url, url


def is_modern(ctx: ServerRequestContext[Any]) -> bool:
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def report(ctx: ServerRequestContext[Any], seconds: float) -> dict[str, Any]:
    """What ``tmux://capabilities`` says of asking this client's person."""
    form, url = declared(ctx)
    how = "input_required results" if is_modern(ctx) else "elicitation/create requests"
    return {"form": form, "url": url, "how": how if form or url else "not declared",
            "seconds": seconds}


class Seal:
    """Seals and opens the ``requestState`` of an input-required result (this process only)."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def _mac(self, body: bytes) -> str:
        return hmac.new(self._key, body, hashlib.sha256).hexdigest()

    def seal(self, key: str, deadline: float) -> str:
        body = base64.urlsafe_b64encode(json.dumps([key, deadline]).encode())
        return body.decode() + "." + self._mac(body)

    def open(self, token: str) -> tuple[str, float] | None:
        body, _, mac = token.partition(".")
        if not hmac.compare_digest(mac, self._mac(body.encode())):
            return None
        try:
            key, deadline = json.loads(base64.urlsafe_b64decode(body))
        except ValueError:
            return None
        return str(key), float(deadline)


def _answers(params: types.CallToolRequestParams, seal: Seal) -> dict[str, Action]:
    """The person's answer a 2026-07-28 retry carries, by question key (empty: none)."""
    opened = seal.open(params.request_state) if params.request_state else None
    response = (params.input_responses or {}).get(ASK_KEY)
    if opened is None or not isinstance(response, types.ElicitResult):
        return {}
    key, deadline = opened
    return {key: "late" if time.time() > deadline else response.action}


@asynccontextmanager
async def _beating(ctx: ServerRequestContext[Any], within: float) -> AsyncIterator[None]:
    """The body, cut off after ``within`` seconds; meanwhile the call's progress every
    ``PROGRESS_EVERY`` seconds, so that a client which resets its timeout on progress waits
    for the person as for any wait (docs/runs-and-waits.md)."""
    start = time.monotonic()

    async def beat() -> None:
        while True:
            await anyio.sleep(PROGRESS_EVERY)
            told = f"waiting for the person to answer: {time.monotonic() - start:.0f} s"
            await ctx.session.report_progress(time.monotonic() - start, within, told)

    with anyio.move_on_after(within):
        async with anyio.create_task_group() as group:
            group.start_soon(beat)
            try:
                yield
            finally:
                group.cancel_scope.cancel()


def asking_for(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams,
               seal: Seal, seconds: float, pages: Any = None) -> Asking:
    """How this call's person is asked (``asking.Asking``); ``pages``: the server's secret
    pages (asking_secret.Pages)."""
    form, url = declared(ctx)
    how = Asking(form=form, url=url, call=call_digest(params.name, params.arguments or {}),
                 seconds=seconds, pages=pages)
    if is_modern(ctx):
        how.answers = _answers(params, seal)
        return how

    async def ask_form(question: str, within: float) -> str | None:
        async with _beating(ctx, within):
            try:
                result = await ctx.session.elicit_form(
                    question, CONFIRM_SCHEMA, related_request_id=ctx.request_id)
            except MCPError:
                return "error"  # the client could not ask: the refusal stands as it was
            return result.action
        return None

    async def ask_url(message: str, url: str, elicitation_id: str, within: float) -> str | None:
        async with _beating(ctx, within):
            try:
                result = await ctx.session.elicit_url(
                    message, url, elicitation_id, related_request_id=ctx.request_id)
            except MCPError:
                return "error"
            return result.action
        return None

    async def completed(elicitation_id: str) -> None:
        await ctx.session.send_elicit_complete(elicitation_id, related_request_id=ctx.request_id)

    how.ask_form, how.ask_url, how.completed = ask_form, ask_url, completed
    return how


def input_required(need: NeedsInput, seal: Seal, seconds: float) -> types.InputRequiredResult:
    """The 2026-07-28 answer that asks the client to put ``need.question`` to the person."""
    asked: types.ElicitRequestParams = types.ElicitRequestFormParams(
        message=need.question, requested_schema=CONFIRM_SCHEMA)
    if need.url is not None:  # a secret: the person opens muxport's page (asking_secret.py)
        asked = types.ElicitRequestURLParams(
            message=need.question, url=need.url, elicitation_id=need.elicitation_id)
    request = types.ElicitRequest(params=asked)
    return types.InputRequiredResult(
        input_requests={ASK_KEY: request},
        request_state=seal.seal(need.key, time.time() + seconds),
    )

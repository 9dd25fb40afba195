"""Asking the person for a secret through a one-time page (docs/asking.md, "Secrets").

URL mode only: form mode would put the secret into the client's conversation. The page
(secret_page.py) lives on the server, not the call, so that a 2026-07-28 client, which
ends the call to ask and retries it, finds it again: ``Pages`` holds the open pages by
question, and runs each in the server's task group.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from anyio.abc import TaskGroup

from muxport._internal.asking import NeedsInput, current, declined, unanswered
from muxport._internal.errors import Refused
from muxport._internal.secret_page import Secret, SecretPage


class Pages:
    """The server's open secret pages, by the key of the question that opened each."""

    def __init__(self, group: Callable[[], TaskGroup | None]) -> None:
        self._group = group
        self._open: dict[str, tuple[SecretPage, str]] = {}

    async def open(self, key: str, prompt: str, seconds: float) -> tuple[SecretPage, str]:
        """A new page for ``key`` (an older one for the same question is closed)."""
        group = self._group()
        if group is None:
            raise RuntimeError("no task group: the server is not running")
        await self.close(key)
        for ended in [k for k, (page, _id) in self._open.items() if page.done.is_set()]:
            del self._open[ended]  # used or expired: nothing left to find
        page = SecretPage(prompt, seconds)
        await page.start(group)
        self._open[key] = (page, secrets.token_urlsafe(12))
        return self._open[key]

    def get(self, key: str) -> tuple[SecretPage, str] | None:
        return self._open.get(key)

    async def close(self, key: str) -> None:
        found = self._open.pop(key, None)
        if found is not None:
            await found[0].close()


async def ask_secret(refused: Refused, question: str, prompt: str, about: str = "") -> Secret:
    """The secret the person typed on a one-time page; else raise the refusal (as is when the
    client has no URL mode), ``declined_by_user`` or ``unanswered_by_user``.

    ``question`` is what the client shows the person before they open the page; ``prompt``
    what the page shows above its field; ``about`` keys the question when its wording may
    change between a 2026-07-28 call and its retry. Call ``Secret.drop`` once used."""
    how = current()
    if how is None or not how.url or how.pages is None:
        raise refused
    pages: Pages = how.pages
    key = how.key(about or question)
    action: str | None = how.answers.get(key)
    found = pages.get(key)
    if action is None or found is None:
        page, elicitation_id = await pages.open(key, prompt, how.seconds)
        if how.ask_url is None:  # 2026-07-28: the client opens it, then retries this call
            raise NeedsInput(question, key, url=page.url, elicitation_id=elicitation_id)
        action = await how.ask_url(question, page.url, elicitation_id, how.seconds)
    else:
        page, elicitation_id = found
    if action != "accept":
        await pages.close(key)
        if action is None or action == "late":
            raise unanswered(refused, how.seconds)
        if action in ("decline", "cancel"):
            raise declined(refused, question)
        raise refused
    secret = await page.received(how.seconds)
    await pages.close(key)
    if secret is None:
        raise unanswered(refused, how.seconds)
    if how.completed is not None:
        await how.completed(elicitation_id)
    return secret

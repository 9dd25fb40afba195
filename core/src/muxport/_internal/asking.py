"""Asking the person where only a person may lift a refusal (docs/asking.md).

A tool that is about to refuse something a person may allow (killing muxport's own pane,
typing where a person is looking) calls ``ask_person`` with the refusal and a question that
names exactly what would happen. When the client declared form-mode elicitation the person
is asked: accept lets the call go on, decline or cancel refuses (``declined_by_user``),
silence past the deadline refuses (``unanswered_by_user``). A client that cannot be asked
gets the refusal unchanged.

This module holds the mechanism and no protocol: the serving layer (``asking_wire.py``)
sets, per call, how this client is asked. The 2025-11-25 era asks over the back channel
while the call waits; in the 2026-07-28 era the call ends with ``NeedsInput`` (answered
as an input-required result) and the client retries the same call with the answer.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from muxport._internal.errors import Refused

ASK_SETTING = "MUXPORT_ASK_SECONDS"
ASK_SECONDS = 120.0  # a person must read the question, find the window and decide
Action = Literal["accept", "decline", "cancel", "late"]
# asks the person one form question; None when no answer came within ``seconds``
FormAsker = Callable[[str, float], Awaitable[str | None]]
# sends the person to a page (message, url, elicitation id, seconds); None: no answer
UrlAsker = Callable[[str, str, str, float], Awaitable[str | None]]


def ask_seconds(env: Mapping[str, str] | None = None) -> float:
    """How long a question waits for the person: ``MUXPORT_ASK_SECONDS`` or 120."""
    raw = (os.environ if env is None else env).get(ASK_SETTING, "")
    try:
        value = float(raw)
    except ValueError:
        return ASK_SECONDS
    return value if 0 < value <= 3600 else ASK_SECONDS


def doctor_line(env: Mapping[str, str] | None = None) -> str:
    """What ``muxport doctor`` says of asking the person (it has no client to ask)."""
    return (f"ask the person: when the client declares elicitation, within {ask_seconds(env):g} s "
            f"({ASK_SETTING}); form mode to lift a refusal, URL mode for secrets; "
            "tmux://capabilities says whether the connected client can be asked")


class NeedsInput(Exception):  # a signal, not an error: the call ends asking the client
    """The call must end with an input-required result carrying ``question`` (2026-07-28)."""

    def __init__(self, question: str, key: str, url: str | None = None,
                 elicitation_id: str = "") -> None:
        super().__init__(question)
        self.question = question
        self.key = key
        self.url = url  # URL mode: the page the person opens (asking_secret.py)
        self.elicitation_id = elicitation_id


@dataclass
class Asking:
    """How the person behind this call's client can be asked, and what they already said."""

    form: bool = False  # the client declared form-mode elicitation
    url: bool = False  # ... and URL mode (for secrets: docs/asking.md, "Secrets")
    ask_form: FormAsker | None = None  # the 2025-11-25 back channel; None: end with NeedsInput
    ask_url: UrlAsker | None = None  # the same for URL mode
    completed: Callable[[str], Awaitable[None]] | None = None  # a page's elicitation is done
    pages: Any = None  # the server's open secret pages (asking_secret.Pages)
    call: str = ""  # the call's tool and arguments, so an answer binds to this very call
    seconds: float = ASK_SECONDS
    answers: dict[str, Action] = field(default_factory=dict)  # from a 2026-07-28 retry
    approved: set[str] = field(default_factory=set)  # asked and accepted in this call
    sent: bool = False  # the call already sent input: a 2026-07-28 retry would send it again

    def key(self, question: str) -> str:
        return hashlib.sha256(f"{self.call}\0{question}".encode()).hexdigest()


_ASKING: ContextVar[Asking | None] = ContextVar("muxport_asking", default=None)


def call_digest(tool: str, arguments: Mapping[str, Any]) -> str:
    return tool + "\0" + json.dumps(arguments, sort_keys=True, default=str)


@contextmanager
def asking(how: Asking | None) -> Iterator[Asking | None]:
    """Set how this call's person is asked, for the calls to ``ask_person`` inside."""
    token = _ASKING.set(how)
    try:
        yield how
    finally:
        _ASKING.reset(token)


def needs_input_in(exc: BaseException) -> NeedsInput | None:
    """The ``NeedsInput`` raised inside a task group (an exception group holds it)."""
    if isinstance(exc, NeedsInput):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := needs_input_in(inner)) is not None:
                return found
    return None


def input_sent() -> None:
    """Tell the asking that this call has sent input: from here on a question cannot end
    the call to be retried (2026-07-28), which would send that input twice; the refusal
    stands instead (send_keys_batch calls it after each row)."""
    how = _ASKING.get()
    if how is not None:
        how.sent = True


def current() -> Asking | None:
    return _ASKING.get()


def declined(refused: Refused, question: str) -> Refused:
    return Refused(
        f"the person declined: {question.rstrip('?')}. Nothing was done; {refused.message}",
        code="declined_by_user", delivery="not_sent",
        data={**refused.data, "asked": refused.code},
    )


def unanswered(refused: Refused, seconds: float) -> Refused:
    return Refused(
        f"the person was asked but did not answer within {seconds:g} s; nothing was done. "
        f"{refused.message}",
        code="unanswered_by_user", retryable=True, delivery="not_sent",
        data={**refused.data, "asked": refused.code},
    )


async def ask_person(refused: Refused, question: str, about: str = "") -> None:
    """Return when the person allows what ``question`` names; else raise the refusal (as is
    when they cannot be asked), ``declined_by_user`` or ``unanswered_by_user``.

    Asked at most once per call for one question (or one ``about``, when the wording may
    vary): a check repeated right before the input (run_shell_command checks twice) finds
    the answer already given."""
    how = _ASKING.get()
    if how is None or not how.form:
        raise refused
    key = how.key(about or question)
    if key in how.approved:
        return
    action: str | None = how.answers.get(key)
    if action is None:
        if how.ask_form is None:
            if how.sent:
                raise refused
            raise NeedsInput(question, key)
        action = await how.ask_form(question, how.seconds)
    if action == "accept":
        how.approved.add(key)
        return
    if action is None or action == "late":
        raise unanswered(refused, how.seconds)
    if action in ("decline", "cancel"):
        raise declined(refused, question)
    raise refused  # the client failed to ask: the refusal stands as it was

"""A fake transport for unit tests of pure logic (records argv, answers from a script),
and ``tool_context`` for calling a tool function directly."""

from __future__ import annotations

from collections.abc import Sequence

from muxport import ToolContext
from muxport._internal.app import App
from muxport._internal.caller import Caller
from muxport._internal.context import Services
from muxport._internal.facts import TmuxResult
from muxport._internal.invoke import DEADLINE
from muxport._internal.transport import Transport


class FakeTmux(Transport):
    """The core's transport with tmux replaced by a script (so it is a ``muxport.Tmux``):
    ``answers`` maps a command name (``list-panes``) to the stdout it prints."""

    def __init__(self, answers: dict[str, str] | None = None) -> None:
        super().__init__("tmux", "/nonexistent/fake.sock")
        self.answers = dict(answers or {})
        self.calls: list[tuple[tuple[str, ...], ...]] = []

    async def _invoke(
        self, commands: Sequence[Sequence[str]], deadline: float = DEADLINE, start: bool = True
    ) -> TmuxResult:
        # every invocation (run, read, batched sends) reaches tmux here
        self.calls.append(tuple(tuple(c) for c in commands))
        out = "".join(self.answers.get(c[0], "") for c in commands)
        return TmuxResult(0, out, "")


def tool_context(
    source: Transport | App, tool: str = "test", caller: Caller | None = None
) -> ToolContext:
    """The context a tool function gets, for calling it (or a helper) directly.

    ``source`` is a transport (``fake_tmux``; the caller defaults to "outside tmux"), or
    the app of an in-process client, whose server state the call then shares.
    """
    if isinstance(source, App):
        return ToolContext(tool, source.server.services)
    return ToolContext(tool, Services(source, caller or Caller("outside")))

"""A fake transport for unit tests of pure logic: records argv, answers from a script."""

from __future__ import annotations

from collections.abc import Sequence

from muxport.invoke import DEADLINE
from muxport.transport import Tmux, TmuxResult


class FakeTmux(Tmux):
    """``answers`` maps a command name (``list-panes``) to the stdout it prints."""

    def __init__(self, answers: dict[str, str] | None = None) -> None:
        super().__init__("tmux", "/nonexistent/fake.sock")
        self.answers = dict(answers or {})
        self.calls: list[tuple[tuple[str, ...], ...]] = []

    async def run(
        self, *commands: Sequence[str], check: bool = True, deadline: float = DEADLINE
    ) -> TmuxResult:
        self.calls.append(tuple(tuple(c) for c in commands))
        out = "".join(self.answers.get(c[0], "") for c in commands)
        return TmuxResult(0, out, "")

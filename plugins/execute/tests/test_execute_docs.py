"""The README and the tool's description say what every run outcome means (issue 10)."""

from __future__ import annotations

import typing
from pathlib import Path

from muxport_execute.run import answer, tools

README = (Path(__file__).resolve().parents[3] / "README.md").read_text()
DOC = (Path(__file__).resolve().parents[3] / "docs" / "run-outcomes.md").read_text()


def test_every_outcome_is_documented() -> None:
    outcomes = typing.get_args(answer.AnswerOutcome)
    description = tools.run_shell_command.__doc__ or ""
    for outcome in outcomes:
        assert f"| `{outcome}`" in README or f"`{outcome}` /" in README or (
            f"/ `{outcome}`" in README), outcome
        assert f"**`{outcome}`**" in DOC, outcome
        assert outcome in description, outcome
    for reason in ("line_not_empty", "not_at_prompt", "starting", "not_a_shell", "unreadable"):
        assert reason in README, reason

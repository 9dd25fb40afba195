"""Properties of the answer budget (answers.py): ``keep_newest`` spends the call's budget on
the newest lines, measured as the answer's JSON text carries them, and ``fit`` brings any
answer within its limit or says it cannot."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from hypothesis import given
from hypothesis import strategies as st
from muxport import Result
from muxport._internal.answers import (
    ENVELOPE,
    AnswerBudget,
    answer_budget,
    answer_dict,
    answer_text,
    answer_unseen,
    answering,
    budget_in_force,
    configure_answer_chars,
    fit,
    text_size,
)
from muxport._internal.declare import output_schema
from muxport.policy import Limits
from muxport.testing import text_block, tool_schema_errors
from pydantic import Field

# quotes, backslashes and control characters cost more than one character in JSON
text_ = st.text(alphabet=st.sampled_from('ab"\\\n\x01é𝕏'), max_size=80)


@given(st.lists(text_, max_size=80), st.integers(min_value=ENVELOPE, max_value=ENVELOPE + 900))
def test_kept_lines_fit_what_the_budget_has_left(lines, limit):
    budget = AnswerBudget(limit)
    with answering(budget):
        assert answer_budget() is budget
        kept = Limits.keep_newest(lines, 5000)
    spent = text_size(kept.lines) - 2  # without the brackets: each line and its comma
    assert spent <= limit - ENVELOPE and budget.used >= spent
    n = len(kept.lines)
    if n:
        assert kept.lines[1:] == lines[len(lines) - n + 1:]  # the newest, exactly
        assert lines[len(lines) - n].endswith(kept.lines[0])
    assert kept.truncated == (kept.lines_dropped > 0 or (n > 0 and kept.lines[0] != lines[-n]))
    if kept.answer_full:
        assert kept.truncated


def test_reads_share_one_budget_and_background_work_has_none():
    budget = AnswerBudget(ENVELOPE + 1_000)
    lines = ["x" * 97] * 50  # 100 characters each in the JSON: quotes and a comma
    with answering(budget):
        first = Limits.keep_newest(lines, 5000)
        second = Limits.keep_newest(lines, 5000)
        with answering(None):
            assert Limits.keep_newest(lines, 5000).lines == lines  # a run's store cut: unbounded
    assert len(first.lines) == 10 and first.answer_full and first.lines_dropped == 40
    assert second.lines == [] and second.answer_full and second.truncated
    assert answer_budget() is None


def test_one_enormous_line_keeps_the_tail_that_fits():
    with answering(AnswerBudget(ENVELOPE + 500)):
        kept = Limits.keep_newest(["old", '"' * 10_000 + "END"], 5000)
    (line,) = kept.lines
    assert line.endswith("END") and text_size([line]) <= 501 and kept.truncated


@given(st.lists(st.dictionaries(st.sampled_from("abc"), text_, max_size=3), max_size=60),
       st.lists(text_, max_size=60), st.integers(min_value=500, max_value=6_000))
def test_fit_trims_the_largest_list_or_says_it_cannot(records, lines, limit):
    data = {"records": records, "lines": lines, "truncated": False}
    fitted = fit(json.loads(json.dumps(data)), limit)
    if fitted is None:
        return
    assert text_size(fitted) <= limit
    if fitted == data:
        return
    assert fitted["truncated"] is True and "answer budget" in fitted["note"]
    assert fitted["records"] == records[: len(fitted["records"])]  # a listing keeps its start
    assert fitted["lines"] == lines[len(lines) - len(fitted["lines"]):]  # lines their end


class Answer(Result):
    text_body = "output"
    text_omits = frozenset({"cursor"})
    text_quiet: ClassVar[dict[str, Any]] = {"invalid": 0}
    output: list[str]
    cursor: str = ""
    invalid: int = 0
    other: list[str] = Field(default_factory=list)


@given(st.lists(st.text(alphabet=st.sampled_from('ab"{}\\\x01é𝕏 '), max_size=30), max_size=30),
       st.text(max_size=20), st.integers(0, 3))
def test_the_text_block_reads_back_as_the_answer_without_what_it_omits(lines, cursor, invalid):
    answer = Answer(output=lines, cursor=cursor, invalid=invalid, other=lines[:2])
    data = answer_dict(answer)
    text = answer_text(answer, data)
    expected = {k: v for k, v in data.items() if k != "cursor" and (k, v) != ("invalid", 0)}
    assert text_block(text, "output") == {**expected, "output": lines}
    assert len(text) <= text_size(data)  # the budget, counted on the JSON, holds for the text


def test_a_body_line_holding_a_newline_stays_in_the_json():
    answer = Answer(output=["one", "two\nthree"])
    text = answer_text(answer, answer_dict(answer))
    assert "\n" not in text and json.loads(text)["output"] == ["one", "two\nthree"]


@given(st.lists(st.text(alphabet=st.sampled_from('ab"\\é'), max_size=10), max_size=5),
       st.text(max_size=10), st.integers(0, 2))
def test_structured_content_is_as_lean_as_the_text_and_valid(lines, cursor, invalid):
    """What no model reads (docs/answers.md, "What a model reads") is left out of
    structuredContent too, which Claude Code shows its model; _meta has it for programs; the
    answer stays valid against the output schema, which no longer requires it."""
    answer = Answer(output=lines, cursor=cursor, invalid=invalid)
    data = answer_dict(answer)
    assert "cursor" not in data and ("invalid" in data) == (invalid != 0)
    assert data["output"] == lines  # the body, even empty: programs read it by name
    assert answer_unseen(answer) == {"cursor": cursor, **({"invalid": 0} if not invalid else {})}
    schema = output_schema(Answer)
    assert schema["properties"]["output"]["default"] == []
    assert "default" not in schema["properties"]["cursor"]
    assert tool_schema_errors(schema, data) == []
    head = json.loads(answer_text(answer, data).partition("\n")[0])
    assert head == {k: v for k, v in data.items() if k != "output"}  # the lines follow it


def test_the_budget_in_force_is_the_operators_else_the_clients_own_else_the_default():
    assert budget_in_force("claude-code")[0] == 45_000
    assert budget_in_force("gemini-cli-mcp-client")[0] == 36_000
    assert budget_in_force("claude-desktop")[0] == 30_000  # not measured: the default
    assert budget_in_force(None)[0] == 30_000
    configure_answer_chars(12_000)
    try:
        limit, why = budget_in_force("claude-code")
        assert limit == 12_000 and "operator" in why
    finally:
        configure_answer_chars(None)

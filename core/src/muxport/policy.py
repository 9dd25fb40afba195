"""The core's policy helpers a tool calls (docs/plugin-contract.md, "muxport.policy"):
where input may go (and asking the person to lift a refusal, docs/asking.md), how a
client's pattern is compiled and searched, and how much a read or a wait may take (and how
large its answer may be).
"""

from muxport._internal.answers import AnswerBudget, answer_budget
from muxport._internal.asking import ask_person, input_sent
from muxport._internal.asking_secret import ask_secret
from muxport._internal.budgets import (
    DEFAULT_LINES,
    DEFAULT_WAIT,
    MAX_CHARS,
    MAX_LINES,
    Bounded,
    clamp_lines,
    effective_timeout,
    keep_newest,
)
from muxport._internal.inputs import Cohort, check_input
from muxport._internal.plumbing import without_plumbing
from muxport._internal.regex import Compiled, MatchBudget, PatternTooCostly, search
from muxport._internal.regex_work import compile_user_regex, match_off_loop

__all__ = [
    "DEFAULT_LINES",
    "DEFAULT_WAIT",
    "MAX_CHARS",
    "MAX_LINES",
    "AnswerBudget",
    "Bounded",
    "Cohort",
    "Compiled",
    "MatchBudget",
    "PatternTooCostly",
    "answer_budget",
    "ask_person",
    "ask_secret",
    "check_input",
    "clamp_lines",
    "compile_user_regex",
    "effective_timeout",
    "input_sent",
    "keep_newest",
    "match_off_loop",
    "search",
    "without_plumbing",
]

"""The core's policy helpers a tool calls (docs/plugin-contract.md, "muxport.policy"):
where input may go (``check_input``), how a client's pattern is compiled and searched
(``UserRegex``), how much a read or a wait may take and how large its answer may be
(``Limits``), and what of a pane's rows is a run's plumbing (``without_plumbing``).
"""

from muxport._internal.budgets import Limits
from muxport._internal.inputs import check_input
from muxport._internal.plumbing import without_plumbing
from muxport._internal.regex_work import UserRegex

__all__ = ["Limits", "UserRegex", "check_input", "without_plumbing"]

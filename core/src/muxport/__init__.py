"""muxport: serve a tmux server to any MCP client.

This module is the whole API a toolset uses (docs/plugin-contract.md); everything
under ``muxport._internal`` is private and may change. Tests use ``muxport.testing``.
"""

from muxport._internal import VERSION
from muxport._internal.budgets import (
    MAX_CHARS,
    MAX_LINES,
    Bounded,
    clamp_lines,
    effective_timeout,
    keep_newest,
)
from muxport._internal.caller import Caller
from muxport._internal.context import ToolContext
from muxport._internal.declare import (
    CHANGE,
    COMMAND,
    DELETE,
    INPUT,
    READ,
    SPAWN,
    Capability,
    Effect,
    Kind,
    OutputClass,
    ProcessReach,
    Toolbox,
    ToolSpec,
    tool,
)
from muxport._internal.errors import (
    InvalidArgument,
    NotFound,
    Refused,
    ServerGone,
    SystemFault,
    TmuxFailed,
    TmuxUnresponsive,
    ToolError,
)
from muxport._internal.facts import KINDS, TmuxResult, classify, literal
from muxport._internal.hookspecs import hookimpl
from muxport._internal.inputs import Cohort, check_input
from muxport._internal.names import PaneTitle, SessionName, StartDirectory, WindowName
from muxport._internal.objects import (
    END,
    PANE_FIELDS,
    SEP,
    SESSION_FIELDS,
    WINDOW_FIELDS,
    Pane,
    Session,
    Window,
    apply,
    field,
    fmt,
    head,
    parse,
    parse_pane,
    records,
    undo_name_dollar,
)
from muxport._internal.regex import Compiled, compile_user_regex, search
from muxport._internal.registry import ToolRegistry
from muxport._internal.targets import (
    Args,
    MaxLines,
    PaneId,
    Result,
    SessionId,
    Timeout,
    WindowId,
    answer_dict,
    exact_id,
)
from muxport._internal.transport import Tmux
from muxport._internal.watch import Activity, watcher

__version__ = VERSION

__all__ = [
    "CHANGE",
    "COMMAND",
    "DELETE",
    "END",
    "INPUT",
    "KINDS",
    "MAX_CHARS",
    "MAX_LINES",
    "PANE_FIELDS",
    "READ",
    "SEP",
    "SESSION_FIELDS",
    "SPAWN",
    "WINDOW_FIELDS",
    "Activity",
    "Args",
    "Bounded",
    "Caller",
    "Capability",
    "Cohort",
    "Compiled",
    "Effect",
    "InvalidArgument",
    "Kind",
    "MaxLines",
    "NotFound",
    "OutputClass",
    "Pane",
    "PaneId",
    "PaneTitle",
    "ProcessReach",
    "Refused",
    "Result",
    "ServerGone",
    "Session",
    "SessionId",
    "SessionName",
    "StartDirectory",
    "SystemFault",
    "Timeout",
    "Tmux",
    "TmuxFailed",
    "TmuxResult",
    "TmuxUnresponsive",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolSpec",
    "Toolbox",
    "Window",
    "WindowId",
    "WindowName",
    "answer_dict",
    "apply",
    "check_input",
    "clamp_lines",
    "classify",
    "compile_user_regex",
    "effective_timeout",
    "exact_id",
    "field",
    "fmt",
    "head",
    "hookimpl",
    "keep_newest",
    "literal",
    "parse",
    "parse_pane",
    "records",
    "search",
    "tool",
    "undo_name_dollar",
    "watcher"
]

"""muxport: serve a tmux server to any MCP client.

This module is what a toolset declares and calls (docs/plugin-contract.md, "The public
API"): declarations, argument and answer types, errors, and the call's context with its
tmux client. Two named submodules hold the helpers a tool uses inside: ``muxport.formats``
(tmux ``-F`` formats and the records they read back) and ``muxport.policy`` (where input
may go, clients' patterns, read budgets). Everything under ``muxport._internal`` is
private and may change. Tests use ``muxport.testing``.
"""

from muxport._internal import VERSION
from muxport._internal.answers import answer_dict
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
    TmuxFailed,
    TmuxUnresponsive,
    ToolError,
)
from muxport._internal.facts import TmuxResult, classify
from muxport._internal.faults import os_fault
from muxport._internal.hookspecs import hookimpl
from muxport._internal.names import PaneTitle, SessionName, StartDirectory, WindowName
from muxport._internal.privatedirs import PrivateDirs
from muxport._internal.registry import ToolRegistry
from muxport._internal.targets import (
    Args,
    MaxLines,
    PaneId,
    Result,
    SessionId,
    Timeout,
    WindowId,
    exact_id,
)
from muxport._internal.tmuxclient import Tmux
from muxport._internal.watch import watcher

__version__ = VERSION

__all__ = [
    "CHANGE",
    "COMMAND",
    "DELETE",
    "INPUT",
    "READ",
    "SPAWN",
    "Args",
    "Caller",
    "Capability",
    "Effect",
    "InvalidArgument",
    "Kind",
    "MaxLines",
    "NotFound",
    "OutputClass",
    "PaneId",
    "PaneTitle",
    "PrivateDirs",
    "ProcessReach",
    "Refused",
    "Result",
    "ServerGone",
    "SessionId",
    "SessionName",
    "StartDirectory",
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
    "WindowId",
    "WindowName",
    "answer_dict",
    "classify",
    "exact_id",
    "hookimpl",
    "os_fault",
    "tool",
    "watcher",
]

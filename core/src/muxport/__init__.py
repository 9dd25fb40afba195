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
from muxport._internal.context import ToolContext
from muxport._internal.declare import Capability, Toolbox, tool
from muxport._internal.errors import (
    InvalidArgument,
    NotFound,
    Refused,
    ServerGone,
    TmuxFailed,
    TmuxUnresponsive,
    ToolError,
)
from muxport._internal.facts import classify
from muxport._internal.hookspecs import hookimpl
from muxport._internal.names import SessionName, WindowName
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
)
from muxport._internal.tmuxclient import Tmux

__version__ = VERSION

__all__ = [
    "Args",
    "Capability",
    "InvalidArgument",
    "MaxLines",
    "NotFound",
    "PaneId",
    "PrivateDirs",
    "Refused",
    "Result",
    "ServerGone",
    "SessionId",
    "SessionName",
    "Timeout",
    "Tmux",
    "TmuxFailed",
    "TmuxUnresponsive",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "Toolbox",
    "WindowId",
    "WindowName",
    "answer_dict",
    "classify",
    "hookimpl",
    "tool",
]

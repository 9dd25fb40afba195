"""muxport: serve a tmux server to any MCP client.

Toolsets import everything they need from here and nothing from ``mcp``.
"""

from muxport.budgets import Bounded, clamp_lines, effective_timeout, keep_newest
from muxport.caller import Caller
from muxport.context import ToolContext
from muxport.declare import ToolSpec, tool
from muxport.errors import (
    InvalidArgument,
    NotFound,
    Refused,
    ServerGone,
    TmuxFailed,
    ToolError,
)
from muxport.hookspecs import hookimpl
from muxport.objects import Pane, Session, Window
from muxport.registry import ToolRegistry
from muxport.targets import (
    Args,
    MaxLines,
    PaneId,
    Result,
    SessionId,
    Timeout,
    WindowId,
    answer_dict,
)
from muxport.transport import Tmux, TmuxResult, literal

__version__ = "0.1.0"

__all__ = [
    "Args",
    "Bounded",
    "Caller",
    "InvalidArgument",
    "MaxLines",
    "NotFound",
    "Pane",
    "PaneId",
    "Refused",
    "Result",
    "ServerGone",
    "Session",
    "SessionId",
    "Timeout",
    "Tmux",
    "TmuxFailed",
    "TmuxResult",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolSpec",
    "Window",
    "WindowId",
    "answer_dict",
    "clamp_lines",
    "effective_timeout",
    "hookimpl",
    "keep_newest",
    "literal",
    "tool",
]

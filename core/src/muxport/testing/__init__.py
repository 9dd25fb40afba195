"""The test kit for toolset authors: a real tmux server on a private socket, shell panes,
MCP clients (in process and over the installed launcher's stdio), ``JsonLines`` (a
server's JSON-RPC lines read within a deadline), ``text_block`` (an answer's text block
read back), a fake transport,
``tool_context`` for calling a tool directly, ``eventually`` (``eventually_blocking``
in synchronous code) for bounded waiting, and ``HOSTILE_PATTERNS`` (the costliest
client regexes) for tools that take patterns. ``muxport.testing.hooks`` holds rc files
whose prompt hooks keep a shell busy between commands. ``muxport.testing.agents`` runs real
clients from npm (Claude Code, Gemini CLI, Codex) against ``muxport.testing.model_api``, a
scripted stand-in for their model APIs (docs/client-fit.md, "Real clients"). ``Person`` and
``person_client``: a scripted person answering elicitation behind a real client (docs/asking.md).

The fixtures live in ``muxport.testing.plugin`` (a ``pytest11`` entry point), so any
project that installs muxport gets them.
"""

from muxport._internal.caller import Caller
from muxport._internal.facts import TmuxResult
from muxport.testing import hooks, reach
from muxport.testing.asking import Person, fill_in, http, person_client
from muxport.testing.clients import (
    CheckedCalls,
    MCPError,
    answer_of,
    capability_row,
    in_process_client,
    launcher,
    stdio_client,
    tool_schema_errors,
)
from muxport.testing.fake import FakeTmux, tool_context
from muxport.testing.lines import JsonLines, text_block
from muxport.testing.patterns import HOSTILE_PATTERNS
from muxport.testing.server import ShellPane, TmuxServer
from muxport.testing.waiting import eventually, eventually_blocking

__all__ = [
    "HOSTILE_PATTERNS",
    "Caller",
    "CheckedCalls",
    "FakeTmux",
    "JsonLines",
    "MCPError",
    "Person",
    "ShellPane",
    "TmuxResult",
    "TmuxServer",
    "answer_of",
    "capability_row",
    "eventually",
    "eventually_blocking",
    "fill_in",
    "hooks",
    "http",
    "in_process_client",
    "launcher",
    "person_client",
    "reach",
    "stdio_client",
    "text_block",
    "tool_context",
    "tool_schema_errors",
]

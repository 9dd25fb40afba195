"""Helpers shared by the execute test modules (run, reach and input-wait tests).

Imported by name: pytest's ``pythonpath`` setting puts this folder on ``sys.path``.
"""

from __future__ import annotations

from typing import Any

# Quoting a run must carry to the shell untouched: command substitution, both kinds of
# quotes, a tab and tmux's own ``#{...}`` formats (POSIX shells).
POSIX_QUOTING = (
    "x=$(printf '%s' \"it's\")\n"
    'echo "$x" \'say "hi"\' `echo back`\n'
    "printf '%s\\n' 'a\tb' | od -An -tx1\n"
    "echo '#{pane_id}' \"#{pane_id}\" ; echo done"
)
QUOTING_OUT = ['it\'s say "hi" back', " 61 09 62 0a", "#{pane_id} #{pane_id}", "done"]


async def call(client: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool, require that it is no tool error, and return its structured content."""
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content[0].text
    data: dict[str, Any] = result.structured_content
    return data


async def run(client: Any, pane: str, command: str, **extra: Any) -> dict[str, Any]:
    return await call(client, "run_shell_command", {"pane_id": pane, "command": command, **extra})

"""Every byte accounted for: an answer cut anywhere on its way says truncated, through
every cut (a run's stored output is cut once, its answer again)."""

from __future__ import annotations

import pytest
from reliability_kit import STATS

pytestmark = pytest.mark.timeout(90)
HUGE_LINE = "python3 -c \"print('x' * 300000)\""


async def test_a_300k_line_says_truncated_everywhere(
    stdio_client, tmux_server, shell_pane, sandbox
):
    tmux_server.cmd("set-option", "-g", "history-limit", "10000")  # the pane keeps it all
    pane = shell_pane("bash")
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        ran = await client.call_tool(
            "run_shell_command", {"pane_id": pane.pane_id, "command": HUGE_LINE, "timeout": 30})
        answer = ran.structured_content
        assert answer["outcome"] == "completed", answer.get("note")
        assert len(answer["output"][-1]) == 200_000
        assert answer["truncated"] is True, {k: v for k, v in answer.items() if k != "output"}
        captured = await client.call_tool(
            "capture_pane", {"pane_id": pane.pane_id, "history": True, "max_lines": 5000})
        assert captured.structured_content["truncated"] is True
        STATS.byte_checks += 2

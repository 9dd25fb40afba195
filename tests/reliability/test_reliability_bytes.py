"""Every byte accounted for: an answer cut anywhere on its way says truncated, through
every cut (a run's stored output is cut once, its answer again)."""

from __future__ import annotations

import pytest
from muxport.testing import answer_of
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
        # stored at 200,000 characters, then cut to fit the 30,000-character answer budget
        assert 25_000 < len(answer["output"][-1]) < 30_000
        assert answer["truncated"] is True, {k: v for k, v in answer.items() if k != "output"}
        captured = await client.call_tool(
            "capture_pane", {"pane_id": pane.pane_id, "history": True, "max_lines": 5000})
        assert captured.structured_content["truncated"] is True
        STATS.byte_checks += 2


INVALID = r"printf 'a\377\376b\n\316\261\n'"  # two bytes that are not UTF-8, then an alpha


async def test_bytes_that_are_not_utf8_are_flagged_and_shown(
    stdio_client, tmux_server, shell_pane, sandbox, tmp_path
):
    pane = shell_pane("bash")
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        args = {"pane_id": pane.pane_id, "timeout": 30}
        ran = (await client.call_tool("run_shell_command", {**args, "command": INVALID}))
        answer = ran.structured_content
        assert answer["outcome"] == "completed", answer.get("note")
        # tmux 3.3a drops the two bytes from the pane; the run's raw copy saw them
        assert answer["output"] == ["a\ufffd\ufffdb", "\u03b1"], answer["output"]
        assert answer["invalid_utf8"] == 2
        assert "od -c" in answer["note"] and "2 bytes" in answer["note"]
        screen = (await client.call_tool("capture_pane", {"pane_id": pane.pane_id}))
        content = screen.structured_content["content"]
        # the pane itself: tmux 3.3a drops the bytes, 3.7c draws U+FFFD for each
        drawn = "ab" if "ab" in content else "a\ufffd\ufffdb"
        assert drawn in content, content
        clean = (await client.call_tool("run_shell_command", {**args, "command": "echo ok"}))
        assert "invalid_utf8" not in clean.structured_content  # 0: no model reads it
        assert answer_of(clean)["invalid_utf8"] == 0  # a program does, in _meta
        assert clean.structured_content["output"] == ["ok"]
        assert tmux_server.cmd("display-message", "-p", "-t", pane.pane_id,
                               "#{pane_pipe}").strip() == "0"  # the copy is closed
        # a pipe of the user's is never replaced nor closed: bytes are then not known
        mine = tmp_path / "mine.log"
        tmux_server.cmd("pipe-pane", "-O", "-t", pane.pane_id, f"cat >> {mine}")
        theirs = (await client.call_tool("run_shell_command", {**args, "command": INVALID}))
        assert theirs.structured_content.get("invalid_utf8") is None  # not known: left out
        assert theirs.structured_content["output"] == [drawn, "\u03b1"]
        assert tmux_server.cmd("display-message", "-p", "-t", pane.pane_id,
                               "#{pane_pipe}").strip() == "1"
        tmux_server.cmd("pipe-pane", "-t", pane.pane_id)
        STATS.byte_checks += 3

"""The read-only promise: a read that would fire a tmux hook is refused and runs nothing.

A hook's ``run-shell`` (without -b) runs before the tmux client that fired it exits, so
once a call has answered, a hook it fired has already made its file: a missing file
right after the answer means the hook never ran. Each test first shows, with tmux
itself, that the hook does make the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def arm(tmux_server: Any, flag: Path, *where: str, hook: str) -> None:
    """Set ``hook`` at ``where`` (set-hook flags) to create ``flag`` when it runs."""
    tmux_server.cmd("set-hook", *where, hook, f"run-shell 'touch {flag}'")


async def test_a_pane_level_capture_hook_refuses_capture_pane(
    stdio_client, shell_pane, tmux_server
):
    pane = shell_pane("bash")
    flag = tmux_server.dir / "hook-ran"
    arm(tmux_server, flag, "-p", "-t", pane.pane_id, hook="after-capture-pane")
    tmux_server.cmd("capture-pane", "-p", "-t", pane.pane_id)  # tmux itself fires it
    assert flag.exists()
    flag.unlink()
    async with stdio_client(toolsets=["inspect"]) as client:
        refused = await client.call_tool("capture_pane", {"pane_id": pane.pane_id})
        assert not flag.exists()
        assert refused.is_error and refused.meta["error_code"] == "hook_present"
        assert refused.meta["delivery"] == "not_sent"
        text = refused.content[0].text
        assert "after-capture-pane" in text and "set-hook -u" in text
        batched = await client.call_tool("call_read_tools_batch", {
            "operations": [{"tool": "capture_pane", "arguments": {"pane_id": pane.pane_id}}],
        })
        row = batched.structured_content["results"][0]
        assert row["error_code"] == "hook_present" and "capture_pane was refused" in row["error"]
        assert not flag.exists()

        tmux_server.cmd("set-hook", "-p", "-u", "-t", pane.pane_id, "after-capture-pane")
        fine = await client.call_tool("capture_pane", {"pane_id": pane.pane_id})
    assert not fine.is_error, fine.content
    assert fine.structured_content["content"][0].startswith("$")
    assert not flag.exists()


async def test_global_and_client_hooks_refuse_the_reads_that_fire_them(
    stdio_client, shell_pane, tmux_server
):
    pane = shell_pane("dash")
    flag = tmux_server.dir / "hook-ran"
    async with stdio_client(toolsets=["inspect", "manage"]) as client:
        arm(tmux_server, flag, "-g", hook="after-list-sessions")
        listed = await client.call_tool("list_sessions", {})
        assert listed.is_error and listed.meta["error_code"] == "hook_present"
        assert listed.meta["level"] == "global" and "set-hook -gu" in listed.content[0].text
        # a tool that claims no read-only is not held to it
        renamed = await client.call_tool("rename_window", {
            "window_id": pane.window_id, "new_name": "kept"})
        assert not renamed.is_error
        tmux_server.cmd("set-hook", "-gu", "after-list-sessions")

        arm(tmux_server, flag, "-t", pane.session_id, hook="client-attached")
        waited = await client.call_tool("wait_for_text", {"pane_id": pane.pane_id, "timeout": 0})
        assert waited.is_error and waited.meta["error_code"] == "hook_present"
        assert waited.meta["hook"] == "client-attached"
        assert tmux_server.clients() == []
        tmux_server.cmd("set-hook", "-u", "-t", pane.session_id, "client-attached")
        fine = await client.call_tool("wait_for_text", {"pane_id": pane.pane_id, "timeout": 0})
    assert not fine.is_error, fine.content
    assert not flag.exists()

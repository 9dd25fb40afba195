"""The clock toolset, tested the way a third-party author would: only muxport's test kit."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

from muxport.testing import capability_row, tool_schema_errors


def test_clock_is_found_through_its_entry_point():
    found = {ep.name: ep for ep in entry_points(group="muxport.toolsets")}
    assert found["clock"].value == "muxport_clock"
    assert found["clock"].dist is not None and found["clock"].dist.name == "muxport-clock"


async def test_show_clock_over_stdio_when_selected(stdio_client, shell_pane, tmux_server):
    pane = shell_pane("bash")
    async with stdio_client(toolsets=["clock"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(tools) == ["show_clock"]
        row = capability_row(tools["show_clock"])
        assert (row["toolset"], row["process_reach"], row["tmux_effects"]) == (
            "clock", "none", ["change"])
        result = await client.call_tool("show_clock", {"pane_id": pane.pane_id})
        assert not result.is_error, result.content
        schema = tools["show_clock"].output_schema
        assert tool_schema_errors(schema, result.structured_content) == []
        assert result.structured_content["pane_id"] == pane.pane_id
        assert result.structured_content["in_mode"] is True
        assert result.structured_content["mode"] == "clock-mode"
        assert json.loads(result.content[0].text) == result.structured_content

        missing = await client.call_tool("show_clock", {"pane_id": "%999"})
        assert missing.is_error
        assert missing.meta["error_code"] == "not_found"
        assert "list_panes" in missing.content[0].text

        bare = await client.call_tool("show_clock", {"pane_id": "0"})
        assert bare.is_error
        assert bare.meta["error_code"] == "invalid_argument"
    assert tmux_server.cmd("display-message", "-p", "-t", pane.pane_id,
                           "#{pane_in_mode} #{pane_mode}").split() == ["1", "clock-mode"]


async def test_clock_is_never_on_by_default(stdio_client, shell_pane, tmux_server):
    pane = shell_pane("dash")
    async with stdio_client() as client:
        names = {t.name for t in (await client.list_tools()).tools}
        refused = await client.call_tool("show_clock", {"pane_id": pane.pane_id})
        report = json.loads((await client.read_resource("tmux://capabilities")).contents[0].text)
    assert "show_clock" not in names
    assert "list_panes" in names
    assert refused.is_error
    assert refused.meta["error_code"] == "tool_not_available"
    assert "clock" in report["selection"]["installed_toolsets"]
    assert "clock" not in report["selection"]["toolsets"]
    # nothing ran: the pane is not in clock mode
    in_mode = tmux_server.cmd("display-message", "-p", "-t", pane.pane_id, "#{pane_in_mode}")
    assert in_mode.strip() == "0"

"""list_sessions, list_windows, list_panes over real stdio and in process."""

from __future__ import annotations

from muxport.testing import tool_schema_errors


async def test_listings_over_stdio_match_tmux(stdio_client, shell_pane, tmux_server):
    pane = shell_pane("bash")
    async with stdio_client(toolsets=["inspect"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("list_sessions", "list_windows", "list_panes"):
            result = await client.call_tool(name, {})
            assert not result.is_error, result.content
            assert tool_schema_errors(tools[name].output_schema, result.structured_content) == []
        panes = (await client.call_tool("list_panes", {})).structured_content
    assert panes["count"] == 1
    assert panes["panes"][0]["id"] == pane.pane_id
    assert "caller" not in panes["panes"][0]  # absent outside tmux
    assert panes["panes"][0]["command"] == "bash"


async def test_bad_session_names_the_listing_tool(mcp_client, shell_pane):
    shell_pane("dash")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        result = await client.call_tool("list_windows", {"session_id": "$999"})
    assert result.is_error
    assert result.meta["error_code"] == "not_found"
    assert result.meta["delivery"] == "not_sent"
    assert "call list_sessions for the 1 that exists" in result.content[0].text


async def test_no_server_is_an_empty_listing_with_a_note(stdio_client, tmux_server):
    tmux_server.kill()
    async with stdio_client(toolsets=["inspect"]) as client:
        result = await client.call_tool("list_sessions", {})
    assert not result.is_error
    assert result.structured_content["count"] == 0
    assert "create_session" in result.structured_content["note"]


async def test_list_panes_with_session_and_window_filters_by_both(mcp_client, shell_pane):
    pane = shell_pane("dash")
    other = shell_pane("dash")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        both = await client.call_tool(
            "list_panes", {"session_id": pane.session_id, "window_id": pane.window_id}
        )
        outside = await client.call_tool(
            "list_panes", {"session_id": pane.session_id, "window_id": other.window_id}
        )
    assert [p["id"] for p in both.structured_content["panes"]] == [pane.pane_id]
    assert outside.structured_content["count"] == 0
    assert "list_windows" in outside.structured_content["note"]

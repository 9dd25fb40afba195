"""Bad inputs to the info, screen, config and batch reads are tool errors that name the recovery."""

from __future__ import annotations

import pytest

# (tool, arguments, text the error must contain: the recovery or the valid values)
CASES = [
    ("get_server_info", {"verbose": True}, "remove it"),
    ("get_session_info", {}, "list_sessions"),
    ("get_session_info", {"session_id": "1"}, "list_sessions, e.g. $1"),
    ("get_session_info", {"session_id": "$999"}, "call list_sessions for the 1 that exists"),
    ("get_window_info", {}, "list_windows"),
    ("get_window_info", {"window_id": 2}, "list_windows, e.g. @2"),
    ("get_window_info", {"window_id": "@999"}, "call list_windows"),
    ("get_pane_info", {"pane_id": "3"}, "list_panes, e.g. %3"),
    ("get_pane_info", {"pane_id": "%999"}, "call list_panes for the 1 that exists"),
    ("get_pane_info", {"pane_id": "main"}, "call list_panes"),
    ("find_pane_by_position", {"window_id": "@0", "position": "middle"}, "'top-left'"),
    ("find_pane_by_position", {"position": "top-left"}, "list_windows"),
    ("capture_pane", {}, "list_panes"),
    ("capture_pane", {"pane_id": "%0", "max_lines": -1}, "greater than or equal to 1"),
    ("capture_pane", {"pane_id": "%0", "max_lines": 10**12}, "less than or equal to"),
    ("capture_pane", {"pane_id": "%999"}, "call list_panes"),
    ("snapshot_pane", {"pane_id": "7"}, "list_panes, e.g. %7"),
    ("snapshot_pane", {"pane_id": "%0", "max_lines": 0}, "greater than or equal to 1"),
    ("search_panes", {}, "pattern: required"),
    ("search_panes", {"pattern": "x" * 4097}, "at most 4096"),
    ("search_panes", {"pattern": "\u00e9" * 2100}, "shorten it to at most 4096 bytes"),
    ("search_panes", {"pattern": "(", "regex": True}, "regex: false"),
    ("search_panes", {"pattern": "x", "max_matches": -5}, "greater than or equal to 1"),
    ("search_panes", {"pattern": "x", "max_matches_per_pane": 10**9}, "less than or equal to"),
    ("search_panes", {"pattern": "x", "session_id": "0"}, "list_sessions"),
    ("get_tmux_variables", {"names": []}, "at least 1"),
    ("get_tmux_variables", {"names": ["#{pane_id}"]}, "[A-Za-z]"),
    ("get_tmux_variables", {"names": ["a"] * 33}, "at most 32"),
    ("get_tmux_variables", {"names": ["x" * 129]}, "at most 128"),
    ("get_tmux_variables", {"names": ["pane_id"], "pane_id": "%999"}, "call list_panes"),
    ("get_tmux_variables", {"names": ["pane_id"], "format": "#{pane_id}"}, "remove it"),
    ("show_option", {"name": "mouse", "scope": "planet"}, "'server'"),
    ("show_option", {"name": "mouse", "scope": "pane"}, "needs target"),
    ("show_option", {"name": "mouse", "scope": "pane", "target": "3"}, "list_panes"),
    ("show_option", {"name": "mouse", "scope": "window", "target": "%0"}, "list_windows"),
    ("show_option", {"name": "no-such-option", "scope": "server"}, "check the spelling"),
    (
        "show_option",
        {"name": "remain-on-exit", "scope": "pane", "target": "%999"},
        "call list_panes",
    ),
    ("show_option", {"name": "#{pane_id}", "scope": "server"}, "should match pattern"),
    ("show_environment", {"session_id": "0"}, "list_sessions"),
    ("show_environment", {"session_id": "$0", "session_name": "x"}, "not both"),
    ("show_environment", {"session_name": "nope"}, "call list_sessions"),
    ("show_environment", {"session_id": "$999"}, "call list_sessions"),
    ("show_hooks", {"scope": "galaxy"}, "'server'"),
    ("show_hooks", {"scope": "window"}, "needs target"),
    ("show_hooks", {"name": "no-such-hook"}, "omit name"),
    ("show_hooks", {"target": "%999"}, "call list_panes"),
    ("call_read_tools_batch", {"operations": []}, "at least 1"),
    ("call_read_tools_batch", {"operations": [{"tool": "list_sessions"}] * 17}, "at most 16"),
    ("call_read_tools_batch", {"operations": [{"tool": "kill_pane"}]}, "not eligible"),
    (
        "call_read_tools_batch",
        {"operations": [{"tool": "list_sessions"}], "on_error": "maybe"},
        "'stop'",
    ),
    (
        "call_read_tools_batch",
        {"operations": [{"tool": "get_pane_info"}]},
        "operation 0: invalid arguments for get_pane_info: pane_id: required",
    ),
    (
        "call_read_tools_batch",
        {"operations": [{"tool": "get_pane_info", "arguments": {}}]},
        "list_panes",
    ),
]


@pytest.fixture
def ready(shell_pane):
    return shell_pane("dash")


async def test_every_bad_input_is_a_tool_error_naming_the_recovery(mcp_client, ready):
    failures = []
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        for tool, arguments, expected in CASES:
            result = await client.call_tool(tool, arguments)
            text = result.content[0].text if result.content else ""
            if not result.is_error or expected not in text:
                failures.append(
                    (tool, arguments if len(str(arguments)) < 80 else "...", text[:300])
                )
            elif result.meta["error_code"] not in ("invalid_argument", "not_found"):
                failures.append((tool, "code", result.meta))
    assert failures == []


async def test_search_caps_are_the_schema_bounds(mcp_client, ready):
    """A max_matches past the cap is refused, never clamped in silence: the schema says the
    same maximum, so a client validating by the schema and the server agree."""
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        tool = {t.name: t for t in (await client.list_tools()).tools}["search_panes"]
        over = await client.call_tool("search_panes", {"pattern": "x", "max_matches": 1001})
        per_pane = await client.call_tool(
            "search_panes", {"pattern": "x", "max_matches_per_pane": 101}
        )
        most = await client.call_tool(
            "search_panes", {"pattern": "x", "max_matches": 1000, "max_matches_per_pane": 100}
        )
    bounds = tool.input_schema["properties"]
    assert bounds["max_matches"]["maximum"] == 1000
    assert bounds["max_matches_per_pane"]["maximum"] == 100
    assert over.is_error and over.meta["error_code"] == "invalid_argument"
    assert "max_matches: Input should be less than or equal to 1000" in over.content[0].text
    assert per_pane.is_error and "less than or equal to 100" in per_pane.content[0].text
    assert not most.is_error

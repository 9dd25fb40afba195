"""call_read_tools_batch: authority, checks before anything runs, stop/continue, byte cap."""

from __future__ import annotations

import dataclasses

from muxport.testing import capability_row, tool_schema_errors

NESTED = {
    "list_sessions",
    "list_windows",
    "list_panes",
    "get_server_info",
    "get_session_info",
    "get_window_info",
    "get_pane_info",
    "capture_pane",
    "capture_since",
    "snapshot_pane",
    "search_panes",
    "find_pane_by_position",
    "get_tmux_variables",
    "show_option",
    "show_environment",
    "show_hooks",
}


def item_tools(tool) -> set[str]:
    """The reads an operation may name: the enum of its ``tool``."""
    items = tool.input_schema["properties"]["operations"]["items"]
    return set(items["properties"]["tool"].get("enum", []))


async def test_batch_over_stdio_runs_reads_in_order(stdio_client, shell_pane, tmux_server):
    pane = shell_pane("bash")
    pane.run("echo batched-text")
    async with stdio_client(toolsets=["inspect"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        batch = tools["call_read_tools_batch"]
        result = await client.call_tool(
            "call_read_tools_batch",
            {
                "operations": [
                    {"tool": "list_panes"},
                    {"tool": "capture_pane", "arguments": {"pane_id": pane.pane_id}},
                    {"tool": "get_pane_info", "arguments": {"pane_id": "%999"}},
                    {"tool": "show_option", "arguments": {"name": "mouse", "scope": "server"}},
                ],
                "on_error": "continue",
            },
        )
        stopped = await client.call_tool(
            "call_read_tools_batch",
            {
                "operations": [
                    {"tool": "get_pane_info", "arguments": {"pane_id": "%999"}},
                    {"tool": "list_sessions", "arguments": {}},
                ]
            },
        )
    assert not result.is_error, result.content
    data = result.structured_content
    assert tool_schema_errors(batch.output_schema, data) == []
    assert [r["index"] for r in data["results"]] == [0, 1, 2, 3]
    assert [r["success"] for r in data["results"]] == [True, True, False, True]
    assert (data["succeeded"], data["failed"]) == (3, 1)
    assert "stopped_at" not in data  # absent at its default (none)
    assert data["results"][0]["result"]["panes"][0]["id"] == pane.pane_id
    assert any("batched-text" in line for line in data["results"][1]["result"]["content"])
    # each row's answer follows that tool's own outputSchema
    for row, name in zip(data["results"], ("list_panes", "capture_pane"), strict=False):
        assert tool_schema_errors(tools[name].output_schema, row["result"]) == []
    failure = data["results"][2]
    assert failure["error_code"] == "not_found" and "list_panes" in failure["error"]
    mouse = tmux_server.cmd("show-options", "-gv", "mouse").strip()  # next-3.8: on
    assert "result" not in failure and data["results"][3]["result"]["value"] == mouse
    assert "truncated" not in data and "truncated_chars" not in data  # false, 0: left out

    halted = stopped.structured_content
    assert halted["stopped_at"] == 0 and len(halted["results"]) == 1
    assert "on_error" in halted["note"]

    assert item_tools(batch) == NESTED & set(tools)
    row = capability_row(batch)
    assert "nested_authority" not in row  # the input schema's tool enum says it (above)
    assert row["process_reach"] == "none" and row["tmux_effects"] == ["observe"]
    assert sorted(row["output_classes"]) == [
        "configured-command",
        "process-environment",
        "terminal-content",
        "tmux-metadata",
    ]


async def test_a_bad_operation_refuses_the_whole_batch_before_anything_runs(mcp_client, shell_pane):
    pane = shell_pane("dash")
    calls = []
    async with mcp_client(toolsets=["inspect"]) as (client, app):
        specs = app.server.services.specs
        original = specs["get_server_info"]

        async def spy(ctx, args):
            calls.append(args)
            return await original.func(ctx, args)

        specs["get_server_info"] = dataclasses.replace(original, func=spy)
        outside = await client.call_tool(
            "call_read_tools_batch",
            {
                "operations": [
                    {"tool": "get_server_info"},
                    {"tool": "wait_for_text", "arguments": {"pane_id": pane.pane_id}},
                ]
            },
        )
        broken = await client.call_tool(
            "call_read_tools_batch",
            {
                "operations": [
                    {"tool": "get_server_info"},
                    {"tool": "capture_pane", "arguments": {"pane_id": "3"}},
                ]
            },
        )
        unknown_key = await client.call_tool(
            "call_read_tools_batch",
            {
                "operations": [
                    {"tool": "get_server_info"},
                    {"tool": "list_panes", "arguments": {}, "extra": 1},
                ]
            },
        )
        fine = await client.call_tool(
            "call_read_tools_batch", {"operations": [{"tool": "get_server_info"}]}
        )
    for refused in (outside, broken, unknown_key):
        assert refused.is_error and refused.meta["error_code"] == "invalid_argument"
    assert "not eligible for read batching" in outside.content[0].text
    assert "list_panes" in broken.content[0].text and "%3" in broken.content[0].text
    assert "remove it" in unknown_key.content[0].text
    assert not fine.is_error and len(calls) == 1


async def test_exclusions_prune_the_batch_and_the_name_grants_its_reads(mcp_client, shell_pane):
    pane = shell_pane("bash")
    async with mcp_client(
        toolsets=[], tools=["call_read_tools_batch"], exclude=["show_environment"]
    ) as (client, _app):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        granted = await client.call_tool(
            "call_read_tools_batch",
            {
                "operations": [
                    {"tool": "get_pane_info", "arguments": {"pane_id": pane.pane_id}},
                ]
            },
        )
        pruned = await client.call_tool(
            "call_read_tools_batch",
            {
                "operations": [
                    {"tool": "show_environment", "arguments": {}},
                ]
            },
        )
        direct = await client.call_tool("get_pane_info", {"pane_id": pane.pane_id})
    assert set(tools) == {"call_read_tools_batch"}
    assert "show_environment" not in item_tools(tools["call_read_tools_batch"])
    assert "get_pane_info" in item_tools(tools["call_read_tools_batch"])
    assert granted.structured_content["results"][0]["result"]["id"] == pane.pane_id
    assert pruned.is_error and "not eligible" in pruned.content[0].text
    assert direct.is_error and direct.meta["error_code"] == "tool_not_available"


async def test_the_reads_of_a_batch_share_one_answer_budget(mcp_client, tmux_server):
    tmux_server.cmd("set-option", "-g", "history-limit", "10000")
    pane = tmux_server.shell_pane("bash")
    pane.run("head -c 500000 /dev/zero | tr '\\0' y")
    op = {"tool": "capture_pane", "arguments": {"pane_id": pane.pane_id, "history": True}}
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        result = await client.call_tool("call_read_tools_batch", {"operations": [op] * 7})
    data = result.structured_content
    assert len(result.content[0].text) <= 30_000  # the default answer budget, in characters
    assert [r["index"] for r in data["results"]] == list(range(7))
    assert all(r["success"] and r["result"]["truncated"] for r in data["results"])
    first = data["results"][0]["result"]["content"]
    assert first[-1].startswith("y") and len(first[-1]) > 20_000  # the first read took it
    assert all(len("".join(r["result"]["content"])) < 1_000 for r in data["results"][1:])

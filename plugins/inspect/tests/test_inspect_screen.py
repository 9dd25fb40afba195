"""capture_pane, snapshot_pane and search_panes: content, cursor, budgets, work ceiling."""

from __future__ import annotations

import itertools
import os

from muxport.testing import CheckedCalls, answer_of, capability_row, tool_schema_errors

_serial = itertools.count(1)


def printing_pane(server, command, width=80, height=24):
    """A session whose pane prints, signals, then sits in cat (no prompt follows)."""
    channel = f"muxport-printed-{os.getpid()}-{next(_serial)}"
    out = server.cmd(
        "new-session",
        "-d",
        "-P",
        "-F",
        "#{pane_id} #{session_id}",
        "-x",
        str(width),
        "-y",
        str(height),
        f"{command}; {server.binary} -S {server.socket_path} wait-for -S {channel}; exec cat",
    )
    server.wait_for(channel)
    return out.split()


async def test_screen_tools_over_stdio(stdio_client, tmux_server):
    pane_id, _ = printing_pane(
        tmux_server,
        "printf 'alpha\\nneedle one\\n'; printf 'W%.0s' $(seq 60); printf 'needle-tail\\npartial'",
        width=40,
    )
    other_id, other_session = printing_pane(tmux_server, "printf 'needle two\\nNEEDLE upper\\n'")
    async with stdio_client(toolsets=["inspect"]) as client:
        call = CheckedCalls(client)
        tools = {t.name: t for t in (await client.list_tools()).tools}

        screen = await call("capture_pane", {"pane_id": pane_id})
        snap = await call("snapshot_pane", {"pane_id": pane_id, "history": True, "max_lines": 3})
        found = await call("search_panes", {"pattern": "needle"})
        regex = await call(
            "search_panes", {"pattern": "needle|NEEDLE", "regex": True, "session_id": other_session}
        )
        capped = await call(
            "search_panes", {"pattern": "needle", "max_matches": 2, "max_matches_per_pane": 1}
        )
        rows = {name: capability_row(tools[name]) for name in tools}

    assert "pane_id" not in screen  # the model sent it: not repeated
    assert "alpha" in screen["content"] and "needle one" in screen["content"]
    # a row wrapped at 40 columns comes back as one line
    assert "W" * 60 + "needle-tail" in screen["content"]
    assert screen["content"] == ["alpha", "needle one", "W" * 60 + "needle-tail", "partial"]
    assert screen["line_count"] == len(screen["content"]) and screen["truncated"] is False
    assert screen["cursor"] == {"x": 7, "y": 4}
    assert screen["max_lines"] == 200
    # the call named it: no default (absent: in _meta), CheckedCalls reads it there
    assert "default" not in tools["capture_pane"].output_schema["properties"]["max_lines"]

    assert snap["pane"]["id"] == pane_id and snap["pane"]["width"] == 40
    assert snap["content"] == screen["content"][-3:]
    assert snap["truncated"] is True and snap["lines_dropped"] == len(screen["content"]) - 3
    assert snap["cursor"] == screen["cursor"]

    where = {(m["pane_id"], m["line"]) for m in found["matches"]}
    assert (pane_id, "needle one") in where and (other_id, "needle two") in where
    assert all(m["session_id"] and m["window_id"].startswith("@") for m in found["matches"])
    first = next(m for m in found["matches"] if m["line"] == "needle one")
    assert screen["content"][first["line_number"] - 1] == "needle one"
    assert found["panes_searched"] == 2 and found["work_limited"] is False
    assert {m["line"] for m in regex["matches"]} >= {"needle two", "NEEDLE upper"}
    assert {m["pane_id"] for m in regex["matches"]} == {other_id}
    assert capped["count"] == 2 and capped["truncated"] is True
    assert len({m["pane_id"] for m in capped["matches"]}) == 2

    for name in ("capture_pane", "snapshot_pane", "search_panes"):
        assert rows[name]["process_reach"] == "none" and rows[name]["tmux_effects"] == ["observe"]
        assert sorted(rows[name]["output_classes"]) == ["terminal-content", "tmux-metadata"]


async def test_history_budget_keeps_newest_lines(mcp_client, tmux_server):
    tmux_server.cmd("set-option", "-g", "history-limit", "250000")
    pane_id, _ = printing_pane(tmux_server, "seq 1 200000")
    everything = tmux_server.cmd("capture-pane", "-p", "-J", "-S", "-", "-t", pane_id)
    lines = everything.rstrip("\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool(
            "capture_pane", {"pane_id": pane_id, "history": True, "max_lines": 2000}
        )  # 2,000 numbers fit the answer budget (30,000 characters): the line budget binds
        huge = await client.call_tool(
            "capture_pane", {"pane_id": pane_id, "history": True, "max_lines": 900000}
        )
    assert tool_schema_errors(tools["capture_pane"].output_schema, result.structured_content) == []
    data = answer_of(result)
    assert data["line_count"] == 2000 and data["truncated"] is True
    assert data["content"][-1] == "200000"
    assert data["content"][0] == str(200000 - 1999)
    assert data["lines_dropped"] == 198000
    assert data["lines_dropped"] == len(lines) - 2000
    assert "2000" in data["note"]
    # the schema's maximum is the cap: what a client's validator refuses, the server refuses
    assert huge.is_error and huge.meta["error_code"] == "invalid_argument"
    assert "less than or equal to 5000" in huge.content[0].text
    assert tools["capture_pane"].input_schema["properties"]["max_lines"]["maximum"] == 5000


async def test_one_enormous_line_comes_back_bounded(mcp_client, tmux_server):
    tmux_server.cmd("set-option", "-g", "history-limit", "10000")
    pane_id, _ = printing_pane(tmux_server, "head -c 500000 /dev/zero | tr '\\0' x; printf END")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        full = (
            await client.call_tool(
                "capture_pane", {"pane_id": pane_id, "history": True, "max_lines": 5}
            )
        ).structured_content
        screen = (await client.call_tool("capture_pane", {"pane_id": pane_id})).structured_content
        found = (await client.call_tool("search_panes", {"pattern": "xEND"})).structured_content
    (line,) = full["content"]  # its tail, within the answer budget (30,000 characters)
    assert full["truncated"] is True and "answer budget" in full["note"]
    assert line.endswith("xEND") and set(line[:-3]) == {"x"} and 25_000 < len(line) < 30_000
    assert len(screen["content"]) <= 24
    assert found["count"] == 1 and len(found["matches"][0]["line"]) <= 1000
    assert "xEND" in found["matches"][0]["line"]


async def test_search_work_ceiling_and_bad_regex(mcp_client, tmux_server):
    # three 9999-row panes are 29,997 screen lines: the 20,000-line ceiling stops the search
    tmux_server.cmd("new-session", "-d", "-s", "tall", "-x", "20", "-y", "9999", "cat")
    tmux_server.cmd("new-window", "-d", "-t", "tall:", "cat")
    tmux_server.cmd("new-window", "-d", "-t", "tall:", "cat")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        limited = (await client.call_tool("search_panes", {"pattern": "zzz"})).structured_content
        bad = await client.call_tool("search_panes", {"pattern": "(unclosed", "regex": True})
        plain = (
            await client.call_tool("search_panes", {"pattern": "(unclosed"})
        ).structured_content
    assert limited["work_limited"] is True and limited["panes_searched"] == 2
    assert "session_id" in limited["note"]
    assert bad.is_error and bad.meta["error_code"] == "invalid_argument"
    assert "regex: false" in bad.content[0].text
    assert plain["count"] == 0 and plain["work_limited"] is True

"""tools/list equals the selection (docs/architecture.md), through the installed launcher
over real stdio."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import anyio
import pytest
from muxport.testing.clients import stdio_client as launch

FIRST_PARTY = ("inspect", "manage", "execute", "teardown")


async def listed(client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


async def capabilities(client) -> dict:
    return json.loads((await client.read_resource("tmux://capabilities")).contents[0].text)


async def test_default_depends_on_who_created_the_dedicated_daemon(toolset_of, tools_in):
    # A private TMUX_TMPDIR: the dedicated socket "muxport" lands here, never on this
    # machine's real one.
    tmpdir = Path(tempfile.mkdtemp(prefix="mx-"))
    env = {"TMUX_TMPDIR": str(tmpdir)}
    socket = tmpdir / f"tmux-{os.getuid()}" / "muxport"
    try:
        async with launch(env) as first:
            created_tools = await listed(first)
            created = await capabilities(first)
        assert socket.exists(), "the daemon was left running after EOF"
        async with launch(env) as second:
            existing_tools = await listed(second)
            existing = await capabilities(second)
    finally:
        await anyio.run_process(["tmux", "-S", str(socket), "kill-server"], check=False)
        shutil.rmtree(tmpdir, ignore_errors=True)
    assert created["connection"]["server_state"] == "created"
    assert created["connection"]["selector"] == "dedicated"
    assert created["connection"]["socket_path"] == str(socket)
    assert created["selection"]["toolsets"] == list(FIRST_PARTY)
    assert created_tools == tools_in(toolset_of, *FIRST_PARTY)

    assert existing["connection"]["server_state"] == "existing"
    assert existing["selection"]["toolsets"] == ["inspect", "manage", "execute"]
    assert existing_tools == tools_in(toolset_of, "inspect", "manage", "execute")
    assert not existing_tools & tools_in(toolset_of, "teardown")
    # third-party toolsets are never on by default, on either kind of daemon
    assert not (created_tools | existing_tools) - tools_in(toolset_of, *FIRST_PARTY)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, lambda t, of: of(t, "inspect", "manage", "execute")),
        ({"LIBTMUX_TOOLSETS": ""}, lambda t, of: set()),
        ({"LIBTMUX_TOOLSETS": "inspect", "LIBTMUX_EXCLUDE_TOOLS": "list_panes"},
         lambda t, of: of(t, "inspect") - {"list_panes"}),
        ({"LIBTMUX_TOOLSETS": "", "LIBTMUX_TOOLS": "list_sessions"},
         lambda t, of: {"list_sessions"}),
        ({"LIBTMUX_TOOLSETS": " inspect ", "LIBTMUX_TOOLS": "list_sessions",
          "LIBTMUX_EXCLUDE_TOOLS": "list_sessions"},
         lambda t, of: of(t, "inspect") - {"list_sessions"}),
    ],
    ids=["default-existing", "empty", "inspect-minus-list_panes", "empty-plus-list_sessions",
         "exclusion-wins-over-addition"],
)
async def test_tools_list_equals_the_selection(tmux_server, toolset_of, tools_in, env, expected):
    async with launch({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, **env}) as client:
        names = await listed(client)
        report = await capabilities(client)
    assert names == expected(toolset_of, tools_in)
    assert set(report["effective_tools"]) == names


async def test_flags_win_over_the_environment(tmux_server):
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "inspect"}
    async with launch(env, args=["--toolsets", "", "--tool", "list_windows"]) as client:
        assert await listed(client) == {"list_windows"}
        assert (await capabilities(client))["selection"]["source"] == "flags"


async def test_unselected_tool_is_refused_and_nothing_runs(tmux_server, shell_pane, recording_tmux):
    pane = shell_pane("dash")
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TMUX_BIN": recording_tmux.path,
           "LIBTMUX_TOOLSETS": "", "LIBTMUX_TOOLS": "list_panes"}
    async with launch(env) as client:
        # initialize is answered while the server loads (docs/architecture.md); a listing
        # waits until it has, and has run tmux
        assert await listed(client) == {"list_panes"}
        before = recording_tmux.calls()
        hidden = await client.call_tool("list_sessions", {})
        unknown = await client.call_tool("no_such_tool", {})
        after = recording_tmux.calls()
        panes = await client.call_tool("list_panes", {})
    assert before, "the wrapper records tmux invocations"
    assert after == before, "a refused call ran tmux"
    for result, why in ((hidden, "is not selected"), (unknown, "does not exist")):
        assert result.is_error
        assert result.meta["error_code"] == "tool_not_available"
        assert result.meta["delivery"] == "not_sent"
        assert why in result.content[0].text
        assert "list_panes" in result.content[0].text  # names what is available
    assert not panes.is_error
    assert [p["id"] for p in panes.structured_content["panes"]] == [pane.pane_id]
    # outside tmux, no pane is the caller's: null, not false
    assert "caller" not in panes.structured_content["panes"][0]  # absent outside tmux


async def test_capabilities_report_selection_rows_and_connection(tmux_server, toolset_of, tools_in):
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "inspect",
           "LIBTMUX_EXCLUDE_TOOLS": "list_panes"}
    async with launch(env) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        report = await capabilities(client)
    selection = report["selection"]
    assert selection["source"] == "environment"
    assert selection["toolsets"] == ["inspect"]
    assert selection["exclude_tools"] == ["list_panes"]
    assert set(FIRST_PARTY) <= set(selection["installed_toolsets"])
    assert report["effective_tools"] == sorted(tools)
    rows = {row["name"]: row for row in report["tools"]}
    definition = ("name", "title", "description", "annotations", "input_schema", "output_schema")
    for name, row in rows.items():
        # _meta carries the row without what the tool definition already says
        meta = tools[name].meta["muxport/capability"]
        assert meta == {k: v for k, v in row.items() if k not in definition and k in meta}
        assert row["toolset"] == toolset_of[name]
        assert row["description"] == tools[name].description
        assert row["input_schema"] == tools[name].input_schema
        assert row["output_schema"] == tools[name].output_schema
        listed = tools[name].annotations.read_only_hint  # left out at MCP's default, false
        assert row["annotations"]["readOnlyHint"] is bool(listed)
        assert row["process_reach"] == "none" and row["tmux_effects"] == ["observe"]
    connection = report["connection"]
    assert connection["selector"] == "socket_path"
    assert connection["source"] == "environment"
    assert connection["socket_path"] == tmux_server.socket_path
    assert connection["server_state"] == "existing"
    assert connection["attach_command"].endswith(f"-S {tmux_server.socket_path} attach -r")
    assert report["tool_filtering_boundary"] == "interface-shaping-not-authorization"
    assert report["execution_authority"] == "tmux-user"
    assert report["caller"]["relation"] == "outside"

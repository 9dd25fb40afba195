"""get_server_info, get_session_info, get_window_info, get_pane_info, find_pane_by_position."""

from __future__ import annotations

from muxport.testing import CheckedCalls, capability_row


async def test_info_tools_over_stdio_match_tmux(stdio_client, shell_pane, tmux_server):
    pane = shell_pane("bash")
    window = pane.window_id
    right = tmux_server.cmd(
        "split-window", "-d", "-h", "-t", pane.pane_id, "-P", "-F", "#{pane_id}"
    ).strip()
    bottom_right = tmux_server.cmd(
        "split-window", "-d", "-v", "-t", right, "-P", "-F", "#{pane_id}", "cat"
    ).strip()
    layout = tmux_server.cmd("display-message", "-p", "-t", window, "#{window_layout}").strip()
    async with stdio_client(toolsets=["inspect"]) as client:
        call = CheckedCalls(client)
        tools = {t.name: t for t in (await client.list_tools()).tools}

        server = await call("get_server_info", {})
        session = await call("get_session_info", {"session_id": pane.session_id})
        window_info = await call("get_window_info", {"window_id": window})
        pane_info = await call("get_pane_info", {"pane_id": pane.pane_id})
        corners = {
            position: (
                await call("find_pane_by_position", {"window_id": window, "position": position})
            )["id"]
            for position in ("top-left", "top-right", "bottom-left", "bottom-right")
        }
        upper = await call("find_pane_by_position", {"window_id": window, "position": "TOP-RIGHT"})
        row = capability_row(tools["get_server_info"])

    assert server["running"] is True and server["version"] == tmux_server.version
    assert server["socket_path"] == tmux_server.socket_path
    assert server["pid"] == int(tmux_server.cmd("display-message", "-p", "#{pid}"))
    assert (server["sessions"], server["windows"], server["panes"]) == (1, 1, 3)
    assert server["clients"] == [] and server["caller_pane_id"] is None
    assert server["inside_this_server"] is False
    assert row["process_reach"] == "none" and row["tmux_effects"] == ["observe"]
    assert row["output_classes"] == ["tmux-metadata"]

    assert session["id"] == pane.session_id and session["active_window_id"] == window
    assert [w["id"] for w in session["windows"]] == [window]
    assert session["windows"][0]["panes"] == 3
    assert (
        session["path"]
        == tmux_server.cmd("display", "-p", "-t", pane.session_id, "#{session_path}").strip()
    )

    assert window_info["layout"] == layout
    assert [p["id"] for p in window_info["panes"]] == [pane.pane_id, right, bottom_right]
    assert window_info["zoomed"] is False and window_info["width"] == 80
    # the layout string is reusable by select-layout (what select_layout sends)
    tmux_server.cmd("select-layout", "-t", window, "even-vertical")
    tmux_server.cmd("select-layout", "-t", window, window_info["layout"])
    assert (
        tmux_server.cmd("display-message", "-p", "-t", window, "#{window_layout}").strip() == layout
    )

    assert pane_info["id"] == pane.pane_id and pane_info["command"] == "bash"
    assert pane_info["history_limit"] == int(
        tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{history_limit}")
    )
    assert "exit_status" not in pane_info  # only a dead pane has one
    assert pane_info["zoomed"] is False and pane_info["dead"] is False
    assert pane_info["history_lines"] == int(
        tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{history_size}")
    )

    assert corners == {
        "top-left": pane.pane_id,
        "bottom-left": pane.pane_id,
        "top-right": right,
        "bottom-right": bottom_right,
    }
    assert upper["id"] == right


async def test_zoom_dead_pane_and_stopped_server(mcp_client, shell_pane, tmux_server):
    pane = shell_pane("dash")
    tmux_server.cmd("set-option", "-g", "remain-on-exit", "on")
    dead = tmux_server.cmd(
        "split-window", "-d", "-h", "-t", pane.pane_id, "-P", "-F", "#{pane_id}", "exit 3"
    ).strip()
    tmux_server.cmd("resize-pane", "-Z", "-t", pane.pane_id)
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        assert tmux_server.wait_exit_status(dead) == "3"
        info = (await client.call_tool("get_pane_info", {"pane_id": dead})).structured_content
        zoomed = (
            await client.call_tool("get_window_info", {"window_id": pane.window_id})
        ).structured_content
        corner = (
            await client.call_tool(
                "find_pane_by_position", {"window_id": pane.window_id, "position": "top-right"}
            )
        ).structured_content
        tmux_server.kill()
        stopped = (await client.call_tool("get_server_info", {})).structured_content
    assert info["dead"] is True and info["exit_status"] == 3
    assert zoomed["zoomed"] is True
    assert corner["id"] == dead  # the layout's corner, not the zoomed pane covering it
    assert stopped["running"] is False and stopped["version"] == tmux_server.version
    assert "create_session" in stopped["note"]

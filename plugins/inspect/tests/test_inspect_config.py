"""get_tmux_variables, show_option, show_environment, show_hooks."""

from __future__ import annotations

from muxport.testing import CheckedCalls, capability_row


async def test_config_tools_over_stdio(stdio_client, shell_pane, tmux_server):
    pane = shell_pane("bash")
    session = pane.session_id
    tmux_server.cmd("set-option", "-t", session, "status-left", "left #{session_name} text")
    tmux_server.cmd("set-option", "-p", "-t", pane.pane_id, "@mark", 'a"b #{pane_id}')
    tmux_server.cmd("set-option", "-w", "-g", "@wide", "global window value")
    tmux_server.cmd("set-environment", "-t", session, "FOO", 'a"b$c\\d\ne f')
    tmux_server.cmd("set-environment", "-t", session, "-r", "GONE")
    tmux_server.cmd("set-environment", "-g", "MUXPORT_GLOBAL", "yes")
    tmux_server.cmd("set-hook", "-g", "after-new-window", "display-message -p hi")
    tmux_server.cmd("set-hook", "-g", "-a", "after-new-window", "run-shell true")
    tmux_server.cmd("set-hook", "-gw", "pane-exited", "run-shell 'echo #{window_id}'")
    tmux_server.cmd("set-hook", "-t", session, "session-renamed", "run-shell true")
    async with stdio_client(toolsets=["inspect"]) as client:
        call = CheckedCalls(client)
        tools = {t.name: t for t in (await client.list_tools()).tools}

        variables = await call(
            "get_tmux_variables",
            {
                "names": [
                    "pane_id",
                    "session_id",
                    "window_width",
                    "pane_current_command",
                    "no_such_var",
                ],
                "pane_id": pane.pane_id,
            },
        )
        status_left = await call(
            "show_option", {"name": "status-left", "scope": "session", "target": session}
        )
        mouse = await call("show_option", {"name": "mouse", "scope": "global"})
        mark = await call("show_option", {"name": "@mark", "scope": "pane", "target": pane.pane_id})
        wide = await call("show_option", {"name": "@wide", "scope": "pane", "target": pane.pane_id})
        wide_local = await call(
            "show_option",
            {"name": "@wide", "scope": "pane", "target": pane.pane_id, "effective": False},
        )
        inherited = await call(
            "show_option", {"name": "history-limit", "scope": "session", "target": session}
        )
        unset_user = await call("show_option", {"name": "@nope", "scope": "server"})
        env = await call("show_environment", {"session_id": session})
        env_named = await call(
            "show_environment",
            {
                "session_name": tmux_server.cmd(
                    "display", "-p", "-t", session, "#{session_name}"
                ).strip()
            },
        )
        global_env = await call("show_environment", {})
        all_hooks = await call("show_hooks", {})
        one_hook = await call("show_hooks", {"name": "after-new-window"})
        session_hooks = await call("show_hooks", {"target": session})
        rows = {name: capability_row(tools[name]) for name in tools}

    assert variables["values"] == {
        "pane_id": pane.pane_id,
        "session_id": session,
        "window_width": "80",
        "pane_current_command": "bash",
        "no_such_var": "",
    }
    assert status_left == {
        "scope": "session",
        "target": session,
        "name": "status-left",
        "value": "left #{session_name} text",
        "set": True,
        "inherited": False,
    }
    default_mouse = tmux_server.cmd("show-options", "-gv", "mouse").strip()  # next-3.8: on
    assert mouse["value"] == default_mouse and mouse["target"] is None
    assert mouse["scope"] == "server"
    assert mark["value"] == 'a"b #{pane_id}' and mark["set"] and not mark["inherited"]
    assert wide["value"] == "global window value" and wide["inherited"] is True
    assert wide_local["value"] is None and wide_local["set"] is False
    assert inherited["inherited"] is True and inherited["value"] == "2000"
    assert unset_user["set"] is False and unset_user["value"] is None

    assert env["session_id"] == session and env["variables"]["FOO"] == 'a"b$c\\d\ne f'
    assert "GONE" in env["unset"] and env["count"] == len(env["variables"])
    assert env_named["variables"] == env["variables"]
    assert global_env["session_id"] is None and global_env["variables"]["MUXPORT_GLOBAL"] == "yes"

    assert all_hooks["hooks"]["after-new-window"] == ["display-message -p hi", "run-shell true"]
    assert all_hooks["hooks"]["pane-exited"] == ['run-shell "echo #{window_id}"']
    assert all_hooks["scope"] == "server" and all_hooks["count"] == len(all_hooks["hooks"])
    assert one_hook["hooks"] == {"after-new-window": ["display-message -p hi", "run-shell true"]}
    assert session_hooks["scope"] == "session" and session_hooks["target"] == session
    assert session_hooks["hooks"] == {"session-renamed": ["run-shell true"]}

    for name in ("get_tmux_variables", "show_option"):
        assert sorted(rows[name]["output_classes"]) == ["configured-command", "tmux-metadata"]
    assert rows["get_tmux_variables"]["input_literalization"] == {
        "names": "validated-variable-name"
    }
    assert rows["show_environment"]["output_classes"] == ["process-environment"]
    assert rows["show_hooks"]["output_classes"] == ["configured-command"]
    for row in rows.values():
        assert row["process_reach"] == "none" and row["tmux_effects"] == ["observe"]

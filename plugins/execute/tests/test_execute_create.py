"""create_session, create_window, split_window, respawn_pane: over stdio, names kept literally."""

from __future__ import annotations

from muxport.testing import CheckedCalls

# tmux would format-expand these: #{pane_id} into an id, #(...) into a command's output;
# strftime is not run on names (docs/tmux-facts.md, "Format expansion"): %5 and %H stay.
TRICKY = "-x #{pane_id} ; \"dq\" 'sq' #(echo ran) ##; %5 %H"


async def test_create_tools_over_stdio_keep_names_literally(stdio_client, tmux_server, tmp_path):
    odd_dir = tmp_path / "dir #{pane_id} %H ;"
    odd_dir.mkdir()
    async with stdio_client(toolsets=["execute"]) as client:
        call = CheckedCalls(client)
        session = await call("create_session", {
            "session_name": TRICKY, "window_name": TRICKY, "start_directory": str(odd_dir),
            "width": 100, "height": 30,
        })
        window = await call("create_window", {
            "session_id": session["id"], "window_name": "w2 " + TRICKY, "direction": "after",
        })
        pane = await call("split_window", {
            "pane_id": session["pane_id"], "direction": "right", "percent": 30,
            "start_directory": str(odd_dir),
        })
        respawned = await call("respawn_pane", {
            "pane_id": pane["id"], "start_directory": str(tmp_path),
        })
        duplicate = await client.call_tool("create_session", {"session_name": TRICKY})
        missing_dir = await client.call_tool("create_window", {
            "session_id": session["id"], "start_directory": str(tmp_path / "nope"),
        })
    assert session["name"] == TRICKY
    assert tmux_server.lines("list-sessions", "-F", "#{session_name}") == [TRICKY]
    names = tmux_server.lines("list-windows", "-t", session["id"], "-F", "#{window_name}")
    assert names == [TRICKY, "w2 " + TRICKY]
    assert window["name"] == "w2 " + TRICKY and window["active"] is False
    assert window["pane_id"].startswith("%")
    size = tmux_server.cmd("display", "-p", "-t", session["window_id"],
                           "#{window_width}x#{window_height}")
    assert size.strip() == "100x30"
    # pane_start_path is 3.3a's; on 3.2a the shell's directory says it
    path = tmux_server.cmd("display", "-p", "-t", session["pane_id"],
                           "#{?pane_start_path,#{pane_start_path},#{pane_current_path}}")
    assert path.strip() == str(odd_dir)
    assert pane["window_id"] == session["window_id"] and pane["active"] is False
    assert pane["width"] < 40
    assert respawned == {"pane_id": pane["id"], "restarted": True}
    assert duplicate.is_error and "already exists" in duplicate.content[0].text
    assert missing_dir.is_error and "not an existing directory" in missing_dir.content[0].text
    assert missing_dir.meta["error_code"] == "invalid_argument"


async def test_create_refuses_what_tmux_would_change(mcp_client, shell_pane):
    shell_pane("dash")
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        dotted = await client.call_tool("create_session", {"session_name": "a.b"})
        relative = await client.call_tool("split_window",
                                          {"pane_id": "%0", "start_directory": "tmp"})
        lone = await client.call_tool("create_session", {"width": 80})
    assert dotted.is_error and "'.'" in dotted.content[0].text
    assert relative.is_error and "absolute" in relative.content[0].text
    assert lone.is_error and "together" in lone.content[0].text


async def test_respawn_revives_a_dead_pane_and_refuses_the_caller(mcp_client, tmux_server,
                                                                  shell_pane):
    pane = shell_pane("dash")
    env = {"TMUX": f"{tmux_server.socket_path},1,0", "TMUX_PANE": pane.pane_id}
    async with mcp_client(toolsets=["execute"], caller_env=env) as (client, _app):
        refused = await client.call_tool("respawn_pane", {"pane_id": pane.pane_id})
    assert refused.is_error and refused.meta["error_code"] == "refused"
    assert "muxport runs in" in refused.content[0].text
    tmux_server.cmd("set", "-p", "-t", pane.pane_id, "remain-on-exit", "on")
    tmux_server.kill_pane_program(pane.pane_id)
    assert tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{pane_dead}").strip() == "1"
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        result = await client.call_tool("respawn_pane", {"pane_id": pane.pane_id})
    assert not result.is_error, result.content[0].text
    assert tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{pane_dead}").strip() == "0"


# Hooks from published configs that fail when nobody is attached: tmux made the object and
# printed its ids, then the hook's error set the exit status (docs/tmux-facts.md, "Hooks
# that fail").
FAILING = {
    "after-new-session": ("command-prompt", "no current client"),
    "after-new-window": ("select-pane -l", "no last pane"),
    "after-split-window": ("command-prompt", "no current client"),
}


async def test_a_failing_after_hook_does_not_undo_the_answer(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("dash")
    for hook, (command, _) in FAILING.items():
        tmux_server.cmd("set-hook", "-g", hook, command)
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        session = await client.call_tool("create_session", {"session_name": "hooked"})
        window = await client.call_tool("create_window", {"session_id": pane.session_id})
        split = await client.call_tool("split_window", {"pane_id": pane.pane_id})
    answers = {"after-new-session": session, "after-new-window": window,
               "after-split-window": split}
    for hook, answer in answers.items():
        assert not answer.is_error, answer.content[0].text
        note = answer.structured_content["note"]
        assert hook in note and FAILING[hook][1] in note and "do not call" in note, note
    made = session.structured_content
    sessions = tmux_server.lines("list-sessions", "-F", "#{session_id}")
    assert sorted(sessions) == sorted([pane.session_id, made["id"]])  # one made, not two
    assert made["window_id"].startswith("@") and made["pane_id"].startswith("%")
    windows = tmux_server.lines("list-windows", "-t", pane.session_id, "-F", "#{window_id}")
    assert windows == [pane.window_id, window.structured_content["id"]]  # one made, not two
    panes = tmux_server.lines("list-panes", "-t", pane.window_id, "-F", "#{pane_id}")
    assert panes == [pane.pane_id, split.structured_content["id"]]


async def test_notification_hooks_run_apart_from_the_answer(mcp_client, tmux_server, shell_pane):
    """``session-created`` and ``window-linked`` hooks are queued as notifications, not on
    the asking client: their errors never reach it (nothing to note)."""
    pane = shell_pane("dash")
    tmux_server.cmd("set-hook", "-g", "session-created", "select-pane -l")
    tmux_server.cmd("set-hook", "-g", "window-linked", "command-prompt")
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        session = await client.call_tool("create_session", {})
        window = await client.call_tool("create_window", {"session_id": pane.session_id})
    for answer in (session, window):
        assert not answer.is_error, answer.content[0].text
        assert "note" not in answer.structured_content
    assert len(tmux_server.lines("list-windows", "-a", "-F", "#{window_id}")) == 3

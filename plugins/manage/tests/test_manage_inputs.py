"""Layouts (abbreviations, saved strings, malformed ones refused before tmux) and bad inputs."""

from __future__ import annotations

from typing import Any

import pytest


async def call(client: Any, name: str, **arguments: Any) -> Any:
    return await client.call_tool(name, arguments)


def error_text(result: Any) -> str:
    assert result.is_error, result.structured_content
    return str(result.content[0].text)


async def test_layout_abbreviations_and_saved_strings(mcp_client, shell_pane, tmux_server):
    pane = shell_pane("dash")
    for _ in range(2):
        tmux_server.cmd("split-window", "-d", "-t", pane.pane_id, "cat")
    layout = lambda: tmux_server.cmd(  # noqa: E731
        "display-message", "-p", "-t", pane.window_id, "#{window_layout}"
    ).strip()
    saved = layout()
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        for given, full in (
            ("even-h", "even-horizontal"),
            ("t", "tiled"),
            ("main-v", "main-vertical"),
            ("EVEN_VERTICAL", "even-vertical"),
        ):
            result = await call(client, "select_layout", window_id=pane.window_id, layout=given)
            assert result.structured_content["layout"] == full
            tmux_server.cmd("select-layout", "-t", pane.window_id, full)
            expected = layout()
            tmux_server.cmd("select-layout", "-t", pane.window_id, saved)
            await call(client, "select_layout", window_id=pane.window_id, layout=given)
            assert layout() == expected
        restored = await call(client, "select_layout", window_id=pane.window_id, layout=saved)
        assert not restored.is_error and layout() == saved

        ambiguous = error_text(
            await call(client, "select_layout", window_id=pane.window_id, layout="even")
        )
        assert "even-horizontal or even-vertical" in ambiguous
        # Names that crash tmux 3.3a (docs/tmux-facts.md, layouts) never reach it.
        for crasher in ("main", "m", "x", "zzz", "tiledx", "next", " "):
            text = error_text(
                await call(client, "select_layout", window_id=pane.window_id, layout=crasher)
            )
            assert "horizontal" in text  # names the presets (or the candidates)
        # A malformed or altered layout string is refused before the window is looked
        # up: the window does not even exist, yet the answer is about the layout.
        tampered = saved[:-1] + ("1" if saved[-1] != "1" else "2")
        for bad in (tampered, "abcd,80x24,0,0{", "ffff," + saved[5:], "0000,zz"):
            result = await call(client, "select_layout", window_id="@999", layout=bad)
            assert result.meta["error_code"] == "invalid_argument", result.content
            assert result.meta["delivery"] == "not_sent"
            assert "get_window_info" in error_text(result)
    assert tmux_server.cmd("list-sessions", "-F", "#{session_id}").strip() == pane.session_id
    assert layout() == saved


BAD_INPUTS = [
    ("rename_window", {"new_name": "x"}, "window_id"),
    ("rename_window", {"window_id": "3", "new_name": "x"}, "list_windows"),
    ("select_pane", {"pane_id": "3"}, "list_panes"),
    ("rename_session", {"session_id": "1", "new_name": "x"}, "list_sessions"),
    ("resize_pane", {"pane_id": "%0", "width": -1}, "greater than or equal to 1"),
    ("resize_window", {"window_id": "@0", "height": 0}, "greater than or equal to 1"),
    ("resize_pane", {"pane_id": "%0"}, "pass width, height or both"),
    ("select_layout", {"window_id": "@0", "layout": "bogus"}, "even-horizontal"),
    ("wait_for_channel", {"channel": ""}, "e.g. build-done"),
    ("wait_for_channel", {"channel": "-S"}, "not starting with '-'"),
    ("signal_channel", {"channel": "a;b"}, "e.g. build-done"),
    ("signal_channel", {"channel": "x" * 129}, "1 to 128"),
    ("set_history_limit", {"session_id": "$0", "lines": -5}, "greater than or equal to 0"),
    ("rename_session", {"session_id": "$0", "new_name": "a.b"}, "use '-' or '_' instead"),
    ("rename_window", {"window_id": "@0", "new_name": "$HOME"}, "drop the '$'"),
    ("rename_window", {"window_id": "@0", "new_name": "a\\b"}, "without '\\'"),
    ("set_pane_title", {"pane_id": "%0", "title": "a\x1bb"}, "pass printable text"),
    ("swap_pane", {"pane_id": "%0", "other_pane_id": "%0"}, "two different panes"),
    ("move_window", {"window_id": "@0", "session_id": "$0", "index": -1}, "greater than or equal"),
    ("select_window", {"window_id": "@999"}, "call list_windows for the 1 that exists"),
    ("set_history_limit", {"session_id": "$999", "lines": 5}, "call list_sessions"),
    ("move_window", {"window_id": "@0", "session_id": "$999"}, "call list_sessions"),
    ("move_window", {"window_id": "@999", "session_id": "$0"}, "call list_windows"),
    ("move_window", {"window_id": "@0", "session_id": "$0", "index": 0}, "omit index"),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "recovery"),
    BAD_INPUTS,
    ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_INPUTS)],
)
async def test_bad_inputs_are_tool_errors_naming_the_recovery(
    mcp_client, shell_pane, tool, arguments, recovery
):
    pane = shell_pane("dash")
    arguments = {
        k: (
            pane.pane_id
            if v == "%0"
            else pane.window_id
            if v == "@0"
            else pane.session_id
            if v == "$0"
            else v
        )
        for k, v in arguments.items()
    }
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        result = await client.call_tool(tool, arguments)
    assert recovery in error_text(result)
    assert result.meta["delivery"] in ("not_sent", "observed")


# strftime sequences, a pane id, and format syntax: the names and titles tmux expands
# (docs/tmux-facts.md, "Format expansion") keep every one of them as given
PERCENT_TEXT = "%5 %H-%M %% #{pane_id} ##"


async def test_names_and_titles_keep_percent_and_format_text(mcp_client, shell_pane, tmux_server):
    pane = shell_pane("dash")
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        session = await call(client, "rename_session", session_id=pane.session_id,
                             new_name=PERCENT_TEXT)
        window = await call(client, "rename_window", window_id=pane.window_id,
                            new_name=PERCENT_TEXT)
        title = await call(client, "set_pane_title", pane_id=pane.pane_id, title=PERCENT_TEXT)
    assert session.structured_content["name"] == PERCENT_TEXT
    assert window.structured_content["name"] == PERCENT_TEXT
    assert title.structured_content["title"] == PERCENT_TEXT
    shown = tmux_server.cmd("display-message", "-p", "-t", pane.pane_id,
                            "#{session_name}|#{window_name}|#{pane_title}").strip()
    assert shown == "|".join([PERCENT_TEXT] * 3)

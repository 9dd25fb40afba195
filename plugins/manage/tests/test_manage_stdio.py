"""Every manage tool over the installed launcher's real stdio, checked against tmux itself."""

from __future__ import annotations

from typing import Any

from muxport.testing import CheckedCalls

TRICKY_WINDOW = '#{pane_id} ; "x"'
TRICKY_SESSION = "build #1 $5 'q' ; -x"


def not_pending(tmux_server: Any, channel: str) -> bool:
    """True when tmux keeps no signal and no waiter for ``channel``.

    ``-S`` then sets it pending and the wait returns at once; a kept signal would be
    toggled off instead (and a lingering dead waiter would swallow the ``-S``), so the
    wait would block until the bounded timeout.
    """
    try:
        tmux_server.cmd("wait-for", "-S", channel, ";", "wait-for", channel, timeout=3)
    except Exception:
        return False
    return True


async def test_every_manage_tool_over_stdio(stdio_client, shell_pane, tmux_server):
    a = shell_pane("bash")
    b = shell_pane("dash")
    cmd = tmux_server.cmd
    second = cmd("split-window", "-d", "-t", a.pane_id, "-P", "-F", "#{pane_id}", "cat").strip()
    extra = cmd("new-window", "-d", "-t", b.session_id + ":", "-P", "-F", "#{window_id}", "cat")
    extra = extra.strip()
    canary = tmux_server.dir / "canary"
    tricky_title = f"#(touch {canary}) ##{{pane_id}}; -T"

    async with stdio_client(toolsets=["manage"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert len(tools) == 14

        call = CheckedCalls(client)

        win = await call("rename_window", window_id=a.window_id, new_name=TRICKY_WINDOW)
        assert win["name"] == TRICKY_WINDOW
        assert cmd("list-windows", "-t", a.session_id, "-F", "#{window_name}").splitlines() == [
            TRICKY_WINDOW
        ]

        ses = await call("rename_session", session_id=a.session_id, new_name=TRICKY_SESSION)
        assert ses["name"] == TRICKY_SESSION and ses["id"] == a.session_id
        assert cmd("display-message", "-p", "-t", a.session_id, "#{session_name}").strip() == (
            TRICKY_SESSION
        )

        pane = await call("set_pane_title", pane_id=a.pane_id, title=tricky_title)
        assert pane["title"] == tricky_title and pane["id"] == a.pane_id
        assert cmd("display-message", "-p", "-t", a.pane_id, "#{pane_title}").strip() == (
            tricky_title
        )

        saved = cmd("display-message", "-p", "-t", a.window_id, "#{window_layout}").strip()
        layout = await call("select_layout", window_id=a.window_id, layout="even-h")
        assert layout["layout"] == "even-horizontal"
        tops = cmd("list-panes", "-t", a.window_id, "-F", "#{pane_top}").split()
        assert tops == ["0", "0"]  # side by side
        restored = await call("select_layout", window_id=a.window_id, layout=saved)
        assert restored["layout"] == saved
        assert cmd("display-message", "-p", "-t", a.window_id, "#{window_layout}").strip() == saved
        await call("select_layout", window_id=a.window_id, layout="even-horizontal")

        sized = await call("resize_pane", pane_id=a.pane_id, width=30)
        assert sized["width"] == 30 and "note" not in sized
        assert cmd("display-message", "-p", "-t", a.pane_id, "#{pane_width}").strip() == "30"
        alone = await call("resize_pane", pane_id=b.pane_id, height=5)
        assert "did not change" in alone["note"]

        window = await call("resize_window", window_id=b.window_id, width=100, height=30)
        assert (window["width"], window["height"]) == (100, 30)
        assert (
            cmd(
                "display-message", "-p", "-t", b.window_id, "#{window_width}x#{window_height}"
            ).strip()
            == "100x30"
        )

        selected = await call("select_window", window_id=extra)
        assert selected["active"] is True
        assert cmd("display-message", "-p", "-t", b.session_id, "#{window_id}").strip() == extra

        active = await call("select_pane", pane_id=second)
        assert active["active"] is True
        assert cmd("display-message", "-p", "-t", a.window_id, "#{pane_id}").strip() == second

        before = cmd("list-panes", "-t", a.window_id, "-F", "#{pane_id}").split()
        swapped = await call("swap_pane", pane_id=a.pane_id, other_pane_id=second)
        assert swapped["pane_id"] == a.pane_id and swapped["other_pane_id"] == second
        assert cmd("list-panes", "-t", a.window_id, "-F", "#{pane_id}").split() == before[::-1]

        moved = await call("move_window", window_id=extra, session_id=a.session_id, index=7)
        assert (moved["session_id"], moved["index"]) == (a.session_id, 7)
        assert cmd(
            "display-message", "-p", "-t", extra, "#{session_id} #{window_index}"
        ).split() == [
            a.session_id,
            "7",
        ]

        await call("signal_channel", channel="mx-stdio")
        waited = await call("wait_for_channel", channel="mx-stdio", timeout=10)
        assert waited["outcome"] == "signalled" and "before this call" in waited["note"]
        assert waited["effective_timeout"] == 10
        assert not_pending(tmux_server, "mx-stdio")

        mouse = await call("set_mouse_enabled", enabled=True)
        assert mouse["enabled"] is True
        assert cmd("show-options", "-gv", "mouse").strip() == "on"
        assert (await call("set_mouse_enabled", enabled=False))["enabled"] is False
        assert cmd("show-options", "-gv", "mouse").strip() == "off"

        assert not canary.exists()  # '#(...)' in a title was never run

        limit = await call("set_history_limit", session_id=a.session_id, lines=4321)
        assert limit["lines"] == 4321 and "panes created from now on" in limit["note"]
        assert cmd("show-options", "-v", "-t", a.session_id, "history-limit").strip() == "4321"

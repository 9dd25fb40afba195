"""What tmux 3.2a does differently, made safe and consistent on the tmux under test (run
it once per version: docs/tmux-facts.md, "Versions")."""

from __future__ import annotations

import pytest
from muxport._internal.objects import TIME_OWNERS, Session, fmt, records
from muxport._internal.transport import Transport
from muxport.testing.waiting import eventually_blocking

pytestmark = pytest.mark.timeout(60)


async def test_time_formats_of_missing_objects_leave_the_server_running(tmux_server) -> None:
    """tmux 3.2a's format_find reads a missing object's time without a NULL check: a
    session's ``created`` for a session that is gone crashed the server."""
    tmux_server.cmd("new-session", "-d", "-s", "kept", "cat")
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    try:
        for target in ("$99", "@99", "%99"):
            for var in (*TIME_OWNERS, *Session.FIELDS.values()):
                await tmux.run(("display-message", "-p", "-t", target, fmt((var,))),
                               check=False)
        out = await tmux.run(("list-sessions", "-F", fmt(Session.FIELDS)))
        ((_, name, _, _, created),) = records(out.stdout)
        assert name == "kept" and int(created) > 0
    finally:
        await tmux.aclose()


async def test_joined_captures_hold_no_padding(tmux_server) -> None:
    """3.2a pads each joined line to the cells it allocated; muxport's captures end each
    line at its last character (on 3.3a and newer: at the last cell a program wrote)."""
    text = "printf 'abcdefgh\\r\\033[Kab\\n$ \\nwrapped-%s' " + "0123456789" * 5
    tmux_server.cmd("new-session", "-d", "-x", "40", "-y", "10",
                    text + "; printf 'tail\\n'; exec cat")
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    pads = tmux_server.version.startswith("3.2")
    eventually_blocking(lambda: tmux_server.cmd("capture-pane", "-p"), lambda out: "tail" in out,
                        what="the printed lines")
    try:
        out = await tmux.run(("display-message", "-p", "#{pane_id}&"),
                             ("capture-pane", "-p", "-J"), ("list-sessions", "-F", "x"))
        lines = out.lines
        assert lines[1:4] == ["ab", "$" if pads else "$ ", f"wrapped-{'0123456789' * 5}tail"]
        assert lines[0].endswith("&") and lines[-1] == "x"
        assert all(line == "" for line in lines[4:-1])
    finally:
        await tmux.aclose()

"""Awkward names, titles and paths read back exactly from the tmux on PATH (run it once
per version: docs/tmux-facts.md, "Format output")."""

from __future__ import annotations

import os
import re

import pytest
from muxport._internal.objects import Pane, Window, fmt, records
from muxport._internal.transport import Transport
from muxport.testing.waiting import eventually_blocking

pytestmark = pytest.mark.timeout(60)
CSTYLE = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\a": "\\a",
          "\v": "\\v", "\f": "\\f"}


def vis(value: str) -> str:
    """What tmux stores for a name it escapes (VIS_OCTAL|VIS_CSTYLE|VIS_TAB|VIS_NL)."""
    return "".join(
        CSTYLE.get(ch) or (f"\\{ord(ch):03o}" if ord(ch) < 32 or ord(ch) == 127 else ch)
        for ch in value
    )


def version(tmux_server) -> tuple[int, int]:
    found = re.search(r"(\d+)\.(\d+)", tmux_server.cmd("-V"))
    assert found is not None
    return int(found[1]), int(found[2])


async def test_awkward_values_read_back_exactly(tmux_server, tmp_path) -> None:
    raw = bytes(tmp_path) + "/p\nq\\037\x1f|&é\t".encode() + b"\xff"
    os.mkdir(raw)
    path = raw.decode("utf-8", "replace")
    cleans = version(tmux_server) >= (3, 7)  # clean_name: refuse controls, store escaped
    name = "w\x1f|&\\037\t"  # a raw control byte: refused by 3.7c+
    made = tmux_server.cmd("new-session", "-d", "-c", os.fsdecode(raw), "-n", name, "sh",
                           check=False)
    if cleans:
        assert made == ""
        name = "w|&\\037 é"
        tmux_server.cmd("new-session", "-d", "-c", os.fsdecode(raw), "-n", name, "sh")
    title = "t\\037|&\\|é $HOME\\$x ${y}"  # titles: printable UTF-8 only, on every version
    tmux_server.cmd("select-pane", "-T", title)
    renamed = "r\x1f\\n\ttab"  # rename-window stores it escaped (window_set_name)
    renaming = tmux_server.cmd("rename-window", "-t", ":0", renamed, check=False)
    expected_name = vis(name) if cleans else name
    if not cleans:
        expected_name = vis(renamed)
    assert renaming == "" or cleans
    expected_title = vis(title) if cleans else title

    # pane_current_path is read from the shell's cwd: empty until it has started
    eventually_blocking(lambda: tmux_server.cmd("display", "-p", "#{?pane_current_path,1,}"),
                        lambda out: out.strip(), what="the pane's current path")
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    try:
        listed = await tmux.run(("list-panes", "-a", "-F", fmt(Pane.FIELDS)))
        shown = await tmux.run(("display-message", "-p", "-t", ":0", fmt(Pane.FIELDS)))
        found = records(listed.stdout) + records(shown.stdout)
        assert len(found) == 2
        for row in found:
            pane = dict(zip(Pane.FIELDS, row, strict=True))
            assert pane["id"].startswith("%") and pane["session_id"].startswith("$")
            assert (pane["path"], pane["title"]) == (path, expected_title)
        listed = await tmux.run(("list-windows", "-F", fmt(Window.FIELDS)))
        (window,) = records(listed.stdout)
        assert dict(zip(Window.FIELDS, window, strict=True))["name"] == expected_name
    finally:
        await tmux.aclose()

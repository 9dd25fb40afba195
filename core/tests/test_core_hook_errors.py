"""A failing after-hook, seen by the transport (completion.py; docs/tmux-facts.md, "Hooks
that fail"): the commands completed, so the invocation succeeded, with the hook's error."""

from __future__ import annotations

from pathlib import Path

import pytest
from muxport import NotFound
from muxport._internal import completion
from muxport._internal.facts import TmuxResult, classify
from muxport._internal.transport import Transport

pytestmark = pytest.mark.timeout(60)


async def test_a_hook_that_fails_after_a_done_command(tmux_server, shell_pane) -> None:
    pane = shell_pane("dash")
    tmux_server.cmd("set-hook", "-g", "after-new-window", "select-pane -l")
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    try:
        made = await tmux.run(("new-window", "-d", "-P", "-F", "#{window_id}",
                               "-t", f"{pane.session_id}:"))
        assert made.returncode == 0 and made.stdout.startswith("@"), made
        assert made.stdout.count("\n") == 1, "the marker's line is taken out"
        assert made.hook_error == "no last pane (after-new-window)"
        with pytest.raises(NotFound):  # a command that failed: no marker, the error it was
            await tmux.run(("new-window", "-d", "-P", "-F", "#{window_id}", "-t", "$999:"))
        quiet = await tmux.run(("list-windows", "-t", pane.session_id, "-F", "#{window_id}"))
        assert quiet.hook_error == "" and len(quiet.lines) == 2  # one window made, not two
    finally:
        await tmux.aclose()


async def test_the_marker_starts_no_server(tmp_path: Path) -> None:
    """``list-commands`` would make a forked client start a server (``tmux -S PATH display
    -p x ; list-commands`` starts one and prints x); a read on a socket with none must
    still answer that none runs (tmux -N)."""
    socket = tmp_path / "none.sock"
    tmux = Transport("tmux", str(socket))
    try:
        listed = await tmux.run(("display-message", "-p", "#{pid}"), check=False)
    finally:
        await tmux.aclose()
    assert listed.returncode != 0 and classify(listed.stderr) == "gone", listed
    assert not socket.exists()


@pytest.mark.parametrize("transport", ["socket", "fork"])
async def test_output_without_a_last_newline_keeps_no_marker(tmux_server, shell_pane, monkeypatch,
                                                             transport) -> None:
    """show-buffer writes a buffer as it is (a far look's text has no last newline): the
    marker's line then follows its last character. Over the socket it arrives, and is
    taken out; a forked 3.3a client closes its stdout after such a write, and prints no
    marker (docs/tmux-facts.md, "Hooks that fail")."""
    shell_pane("dash")
    if transport == "fork":
        monkeypatch.setenv("MUXPORT_TRANSPORT", "fork")
    else:
        monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    try:
        shown = await tmux.run(("set-buffer", "-b", "mx", "--", "abc\ndef"),
                               ("show-buffer", "-b", "mx"), ("delete-buffer", "-b", "mx"))
    finally:
        await tmux.aclose()
    assert (shown.returncode, shown.stdout) == (0, "abc\ndef"), shown


def test_settle_reads_the_marker_only_as_the_last_line() -> None:
    line = completion.TOKEN + "\n"
    hooks = ("after-send-keys",)
    glued = completion.settle(TmuxResult(1, "x" + line, "no current client\n"), hooks)
    assert (glued.returncode, glued.stdout) == (0, "x")  # after output with no last newline
    done = completion.settle(TmuxResult(1, "a\n" + line, "no current client\n"), hooks)
    assert (done.returncode, done.stdout) == (0, "a\n")
    assert done.hook_error == "no current client (after-send-keys)"
    assert completion.settle(TmuxResult(0, line, ""), hooks) == TmuxResult(0, "", "")


def test_a_marker_line_before_a_failure_is_not_the_marker() -> None:
    """The marker is the invocation's last command, so its line is the last of stdout. A
    pane can show the token (a person read it in ps: a forked client's argv): captured
    before a command that failed, that line is not the marker, and the failure stays."""
    line = completion.TOKEN + "\n"
    failed = TmuxResult(1, "a\n" + line + "b\n", "can't find pane: %9\n")
    assert completion.settle(failed, ("after-capture-pane",)) == failed
    first = TmuxResult(1, line + "b\n", "can't find pane: %9\n")
    assert completion.settle(first, ("after-capture-pane",)) == first

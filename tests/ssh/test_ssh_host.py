"""``muxport --ssh`` serves the tmux server of another host (issue 23): a real sshd on
127.0.0.1, a real test user as the far user, the installed launcher over real stdio.

The far side is looked at directly too: the far user's server through its socket
(``FarHost.server``), as root, whom tmux lets in.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
from muxport.testing import CheckedCalls, answer_of, eventually_blocking, stdio_client

pytestmark = pytest.mark.timeout(60)


# quoting a run carries to the far shell untouched (both quotes, tmux's own formats)
QUOTING = "x=$(printf '%s' \"it's\"); echo \"$x\" 'say \"hi\"' '#{pane_id}' \"#{pane_id}\""
QUOTED = ["it's say \"hi\" #{pane_id} #{pane_id}"]


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return answer_of(result)  # what no model reads too, from _meta


async def test_tools_sessions_and_the_far_daemon(far):
    async with far.client() as client:
        call = CheckedCalls(client)
        tools = (await client.list_tools()).tools
        # This launcher created the far daemon: the default is all four toolsets.
        assert len(tools) == 47, sorted(t.name for t in tools)
        server = far.server()
        assert os.stat(f"/proc/{server.pid()}").st_uid == far.user.uid  # as the far user
        assert server.socket_path == far.socket_path("muxport")
        made = await call("create_session", session_name="far-one")
        listed = await call("list_sessions")
        assert [(s["id"], s["name"]) for s in listed["sessions"]] == [(made["id"], "far-one")]
        assert server.lines("list-sessions", "-F", "#{session_id} #{session_name}") == [
            f"{made['id']} far-one"
        ]
        # The new pane runs the far user's login shell with its own rc files.
        who = await call("run_shell_command", pane_id=made["pane_id"],
                         command="id -un; echo $HOME")
        assert (who["output"], who["exit_status"]) == ([far.user.name, str(far.user.home)], 0)
        assert who["frame"] == "typed"


async def test_runs_in_bash_zsh_and_dash_on_the_far_server(far):
    # LIBTMUX_SSH names the host as --ssh does.
    options = [x for option in far.options() for x in ("--ssh-option", option)]
    env = {"LIBTMUX_SSH": far.destination, "LIBTMUX_TOOLSETS": "execute"}
    async with stdio_client(env, args=[*options, "--tmux", far.tmux]) as client:
        call = CheckedCalls(client)
        server = far.server()
        for shell in ("bash", "zsh", "dash"):
            p = server.shell_pane(shell).pane_id

            async def run(command: str, p: str = p) -> Any:
                return await call("run_shell_command", pane_id=p, command=command)

            first = await run("printf 'a\\nb\\n'")
            assert (first["output"], first["exit_status"], first["outcome"]) == (
                ["a", "b"], 0, "completed"), shell
            assert first["frame"] == "typed" and first["framed"] is True, (shell, first)
            assert (await run("false"))["exit_status"] == 1, shell
            three = await run("echo bye; exit 3")
            assert (three["output"], three["exit_status"]) == (["bye"], 3), shell
            quoting = await run(QUOTING)
            assert (quoting["output"], quoting["exit_status"]) == (QUOTED, 0), shell
            shown = server.cmd("display", "-p", "-t", p, "#{pane_current_command}|#{pane_dead}")
            assert shown.strip() == f"{shell}|0"


async def test_new_lines_and_waits_on_the_far_server(far, armed_call):
    async with far.client(["inspect", "manage"]) as client:
        server = far.server()
        pane = server.shell_pane("bash", height=10)
        p = pane.pane_id
        first = ok(await client.call_tool("capture_since", {"pane_id": p}))
        pane.run("printf 'new-%s\\n' 1 2 3")
        since = ok(await client.call_tool("capture_since", {"pane_id": p,
                                                             "cursor": first["cursor"]}))
        assert [line for line in since["content"] if line.startswith("new-")] == [
            "new-1", "new-2", "new-3"]
        assert since["new_lines"] == len(since["content"])
        # Text printed 1 s after the wait is armed: answered when it appears.
        started = time.monotonic()
        found = ok(await armed_call(
            client, "wait_for_text", {"pane_id": p, "patterns": ["done-XYZ"], "timeout": 20},
            lambda: pane.type('sleep 1; echo done-""XYZ')))
        took = time.monotonic() - started
        assert (found["outcome"], found["matched_line"]) == ("matched", "done-XYZ"), found
        assert 1.0 <= found["seconds"] < 10 and took < 10, (found, took)
        # A channel signalled on the far server by tmux itself.
        woken = ok(await armed_call(
            client, "wait_for_channel", {"channel": "far-go", "timeout": 20},
            lambda: server.cmd("wait-for", "-S", "far-go"), "registered"))
        assert woken["outcome"] == "signalled" and woken["seconds"] < 10, woken


async def test_socket_name_names_a_server_of_the_far_user(far):
    made = far.as_user("env", "-u", "TMUX", "-u", "TMUX_TMPDIR", far.tmux, "-L", "mxfar",
                       "-f", "/dev/null", "new-session", "-d", "-s", "theirs")
    assert made.returncode == 0, made.stderr
    async with far.client(["inspect"], args=["--socket-name", "mxfar"]) as client:
        listed = await CheckedCalls(client)("list_sessions")
        assert [s["name"] for s in listed["sessions"]] == ["theirs"]
    assert not far.has_socket()  # no daemon was started beside it


# far past the 4000 characters a typed line may hold (a quote takes 4), in POSIX shells
# and fish alike; a heredoc writing a file, as agents do, in the POSIX ones
LONG = ("printf '%s' '" + "A" * 4500 + "' | wc -c; echo \"it's\" 'say \"hi\"'; exit 4")
LONG_LINE = " ".join(["it's \"quoted\" %s \\ $HOME"] * 10)
HEREDOC = ("f=$(mktemp); cat > \"$f\" <<'END'\n" + "\n".join([LONG_LINE] * 40) + "\nEND\n"
           "wc -l < \"$f\"; tail -n 1 \"$f\"; rm \"$f\"")


def fish_pane(server: Any) -> str:
    """A far fish at its prompt (the kit's shell panes are POSIX shells)."""
    pane = server.cmd("new-window", "-P", "-F", "#{pane_id}", "fish", "--no-config").strip()
    eventually_blocking(lambda: server.lines("capture-pane", "-p", "-t", pane),
                        lambda rows: any(row.rstrip().endswith(">") for row in rows),
                        what="fish's prompt", within=20)
    return pane


async def test_a_command_longer_than_a_typed_line_runs_on_the_far_server(far):
    async with far.client(["execute"]) as client:
        call = CheckedCalls(client)
        server = far.server()
        for shell in ("bash", "zsh", "dash", "fish"):
            pane = fish_pane(server) if shell == "fish" else server.shell_pane(shell).pane_id
            done = await call("run_shell_command", pane_id=pane, command=LONG)
            assert (done["output"], done["exit_status"]) == (["4500", "it's say \"hi\""], 4), shell
            assert done["frame"] == "typed", shell
            if shell != "fish":
                done = await call("run_shell_command", pane_id=pane, command=HEREDOC)
                assert (done["output"], done["exit_status"]) == (["40", LONG_LINE], 0), shell
            # the line took the program from a buffer and deleted it: none is left
            assert [b for b in server.buffers() if "muxport" in b] == [], shell

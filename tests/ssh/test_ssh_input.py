"""``waiting_for_input`` and ``echo_off`` for runs on a far server (``muxport --ssh``,
issue 23): read from the far host's ``/proc`` and the pane's terminal by one shell that
tmux starts there (``if-shell``), nothing installed on that host. A real sshd on
127.0.0.1, a real test user as the far user, the installed launcher over real stdio.
"""

from __future__ import annotations

from typing import Any

import pytest
from muxport.testing import CheckedCalls

pytestmark = pytest.mark.timeout(90)

ASKED = 10.0  # seconds a far run that asks may take to answer waiting_for_input at most
WAIT = 30.0  # the runs' timeout: an answer well before it was not a timeout


async def _answer(call: CheckedCalls, p: str, text: str, run_id: str) -> dict[str, Any]:
    await call("paste_text", pane_id=p, text=text, enter=True)
    done: dict[str, Any] = await call("wait_for_run", run_id=run_id, timeout=20)
    return done


def _waiting(asked: dict[str, Any], echo_off: bool) -> None:
    assert (asked["outcome"], asked["echo_off"]) == ("waiting_for_input", echo_off), asked
    assert asked["seconds"] < ASKED, asked
    assert asked["frame"] == "typed" and asked.get("exit_status") is None, asked


async def test_a_far_read_and_a_far_repl_wait_for_input(far):
    async with far.client(["execute"]) as client:
        call = CheckedCalls(client)
        p = far.server().shell_pane("bash").pane_id
        asked = await call("run_shell_command", pane_id=p, timeout=WAIT,
                           command="echo asking; read x; echo \"got $x\"; exit 2")
        _waiting(asked, False)
        assert asked["output"] == ["asking"] and "paste_text" in asked["note"]
        again = await call("wait_for_run", run_id=asked["run_id"], timeout=WAIT)
        _waiting(again, False)
        done = await _answer(call, p, "hello", asked["run_id"])
        assert (done["outcome"], done["exit_status"], done["output"]) == (
            "completed", 2, ["asking", "hello", "got hello"])
        # python's line editor waits in select() on the terminal: the far shell reads the
        # watched descriptor set from /proc/PID/mem
        repl = await call("run_shell_command", pane_id=p, timeout=WAIT, command="python3 -q")
        _waiting(repl, False)
        assert "python3" in repl["note"]  # the far reader's own name, from the far /proc
        left = await _answer(call, p, "raise SystemExit(7)", repl["run_id"])
        assert (left["outcome"], left["exit_status"]) == ("completed", 7)


async def test_far_secret_prompts_have_echo_off(far):
    async with far.client(["execute"]) as client:
        call = CheckedCalls(client)
        p = far.server().shell_pane("bash").pane_id
        secret = await call("run_shell_command", pane_id=p, timeout=WAIT,
                            command="read -s -p 'Token: ' t; echo; [ \"$t\" = s3cret ]")
        _waiting(secret, True)
        assert secret["prompt"] == ["Token:"] and "ask the user" in secret["note"].lower()
        right = await _answer(call, p, "s3cret", secret["run_id"])
        assert (right["outcome"], right["exit_status"]) == ("completed", 0)
        # getpass reads /dev/tty: the process's controlling terminal, the pane's
        hidden = await call("run_shell_command", pane_id=p, timeout=WAIT,
                            command="python3 -c 'import getpass; getpass.getpass()'")
        _waiting(hidden, True)
        gone = await _answer(call, p, "x", hidden["run_id"])
        assert (gone["outcome"], gone["exit_status"]) == ("completed", 0)


async def test_a_far_sleep_is_not_waiting(far):
    async with far.client(["execute"]) as client:
        call = CheckedCalls(client)
        p = far.server().shell_pane("bash").pane_id
        slept = await call("run_shell_command", pane_id=p, command="sleep 5", timeout=2)
        assert slept["outcome"] == "timed_out" and slept.get("echo_off") is None, slept
        assert "cannot see" not in slept["note"], slept  # it looked, and saw no reader
        done = await call("wait_for_run", run_id=slept["run_id"], timeout=20)
        assert (done["outcome"], done["exit_status"]) == ("completed", 0)
        # nothing of the looks is left on the far server: no buffer, no pane in a mode
        server = far.server()
        assert server.lines("list-buffers", "-F", "#{buffer_name}") == []
        assert server.cmd("display", "-p", "-t", p, "#{pane_in_mode}").strip() == "0"

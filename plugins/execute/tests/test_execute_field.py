"""Runs in configured shells, as agents meet them (issue 10): text on the line, vi mode,
continuation prompts, a pending read, C-z, a killed frame, C-c statuses, traps and hooks,
slow rc files, screens rewritten by the command. Real tmux, real shells, the installed
launcher over stdio. Every situation either runs correctly or answers within a few
seconds with its outcome and reason; the recovery named works; the next run is exact."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
from muxport.testing import CheckedCalls, eventually
from muxport_execute.host.procs import children

TOOLSETS = ["execute", "inspect"]
PY_KI_5 = (
    "python3 -c \"import sys, time\ntry:\n    print('{begun}', flush=True); time.sleep(100)\n"
    "except KeyboardInterrupt:\n    sys.exit(5)\""
)


async def refused(client: Any, name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool(name, args)
    assert result.is_error, result.structured_content
    return result.content[0].text, dict(result.meta or {})


async def shown(call: CheckedCalls, pane: str, text: str, regex: bool = False) -> None:
    """Wait (bounded) until ``text`` is in the pane."""
    seen = await call("wait_for_text", {"pane_id": pane, "patterns": [text], "regex": regex,
                                        "timeout": 10})
    assert seen["outcome"] in ("matched", "present_at_entry"), seen


async def exact(call: CheckedCalls, pane: str, word: str = "next") -> None:
    """The next run on ``pane`` succeeds with exact output."""
    done = await call("run_shell_command", {"pane_id": pane, "command": f"echo {word}"})
    assert (done["outcome"], done["output"], done["exit_status"]) == ("completed", [word], 0)
    assert done["framed"] is True


VI = {"bash": "set -o vi", "zsh": "bindkey -v"}


@pytest.mark.parametrize(("shell", "keymap"), [
    ("bash", "emacs"), ("bash", "vi"), ("zsh", "emacs"), ("zsh", "vi")])
async def test_own_text_and_vi_command_mode_are_cleared(stdio_client, rc_pane, shell, keymap):
    p = rc_pane(shell, VI[shell] if keymap == "vi" else "").pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        await call("send_keys", {"pane_id": p, "keys": ["echo half-typed"], "literal": True})
        await shown(call, p, "echo half-typed")
        await exact(call, p, "one")
        if keymap == "vi":  # Escape: vi command mode, invisible on the screen
            await call("send_keys", {"pane_id": p, "keys": ["echo more", "Escape"]})
            await exact(call, p, "two")
        await call("paste_text", {"pane_id": p, "text": "echo pasted", "enter": False})
        await shown(call, p, "echo pasted")
        await exact(call, p, "three")


@pytest.mark.parametrize("shell", ["bash", "zsh"])
async def test_someone_elses_text_is_refused_and_c_c_recovers(stdio_client, rc_pane, shell):
    pane = rc_pane(shell)
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        pane.type("echo not-mine", enter=False)  # typed by a person (not through muxport)
        await shown(call, pane.pane_id, "echo not-mine")
        text, meta = await refused(client, "run_shell_command",
                                   {"pane_id": pane.pane_id, "command": "echo x"})
        assert meta["reason"] == "line_not_empty" and "not-mine" in meta["line"]
        assert "C-c" in text and meta["delivery"] == "not_sent"
        await call("send_keys", {"pane_id": pane.pane_id, "keys": ["C-c"]})
        await exact(call, pane.pane_id)
    assert "not-mine" not in "".join(pane.screen()[-1:])


CONTINUATIONS = {"quote": "echo 'open", "heredoc": "cat <<EOF", "backslash": "echo a \\"}


@pytest.mark.parametrize("shell", ["bash", "zsh"])
@pytest.mark.parametrize("kind", ["quote", "heredoc", "backslash", "read"])
async def test_continuation_and_pending_read_are_refused(stdio_client, rc_pane, shell, kind):
    pane = rc_pane(shell)
    s = pane.server
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        if kind == "read":  # the shell is in `read` once the channel is signalled
            pane.type(f"{s.binary} -S {s.socket_path} wait-for -S field-read; read x")
            s.wait_for("field-read")
        else:
            pane.type(CONTINUATIONS[kind])
            await shown(call, pane.pane_id, r"^[a-z ]*> ?$", regex=True)
        text, meta = await refused(client, "run_shell_command",
                                   {"pane_id": pane.pane_id, "command": "echo x"})
        assert meta["reason"] == "not_at_prompt" and "C-c" in text, text
        await call("send_keys", {"pane_id": pane.pane_id, "keys": ["C-c"]})
        await exact(call, pane.pane_id)


@pytest.mark.parametrize("shell", ["bash", "zsh"])
async def test_vi_command_mode_by_someone_else_is_not_started(stdio_client, rc_pane, shell):
    pane = rc_pane(shell, VI[shell])
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        pane.type("", enter=False)
        pane.server.cmd("send-keys", "-t", pane.pane_id, "Escape")  # not through muxport
        done = await call("run_shell_command", {"pane_id": pane.pane_id, "command": "echo x"})
        assert done["outcome"] == "not_started" and done["seconds"] < 6, done
        assert done["reason"] == "not_at_prompt" and "C-c" in done["note"]
        # Seen from /proc (the shell read the line and waits again), not the start bound.
        assert "read the typed line without running it" in done["note"], done
        assert done["output"] == [] and "exit_status" not in done
        await call("send_keys", {"pane_id": pane.pane_id, "keys": ["C-c"]})
        await exact(call, pane.pane_id)


def in_read_of_one_byte(pid: int) -> bool:
    """/proc/<pid>/syscall: blocked in read(2) (0) of one byte (count 0x1)."""
    with open(f"/proc/{pid}/syscall") as f:
        fields = f.read().split()
    return fields[:1] == ["0"] and fields[3:4] == ["0x1"]


async def test_dash_read_is_refused_before_typing(stdio_client, rc_pane):
    pane = rc_pane("dash")
    s = pane.server
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        pane.type("read x; echo \"x=$x\"")  # typed by the test through tmux, not muxport
        shell = int(s.cmd("display", "-p", "-t", pane.pane_id, "#{pane_pid}"))
        await eventually(lambda: in_read_of_one_byte(shell), what="dash blocked in its read")
        text, meta = await refused(client, "run_shell_command",
                                   {"pane_id": pane.pane_id, "command": "echo x"})
        assert meta["reason"] == "not_at_prompt" and "read" in text and "C-c" in text, text
        assert meta["delivery"] == "not_sent"
        assert not any("mxr-" in row for row in pane.screen())  # nothing was typed
        await call("send_keys", {"pane_id": pane.pane_id, "keys": ["C-c"]})
        await exact(call, pane.pane_id)


async def test_ksh_read_takes_the_line_and_the_run_is_not_started_at_once(stdio_client, rc_pane):
    # ksh93 keeps the terminal raw in `read` as at its prompt, and waits in the same
    # pselect: a pending read is seen only once it took the typed line (from /proc).
    pane = rc_pane("ksh")
    s = pane.server
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        pane.type(f"{s.binary} -S {s.socket_path} wait-for -S field-ksh; read x; echo \"x=$x\"")
        s.wait_for("field-ksh")
        done = await call("run_shell_command", {"pane_id": pane.pane_id, "command": "echo x"})
        assert (done["outcome"], done["reason"]) == ("not_started", "not_at_prompt"), done
        assert "read the typed line without running it" in done["note"], done
        # the read took the line as data: a row that holds the typed line, which reads leave
        # out (docs/answers.md, "Plumbing"), so it is looked for in the pane itself
        await eventually(lambda: any(row.startswith("x=. '/") for row in pane.screen()),
                         what="the read's echo of the typed line")
        await exact(call, pane.pane_id)


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash", "ksh"])
async def test_c_z_is_stopped_and_fg_resumes(stdio_client, rc_pane, shell):
    pane = rc_pane(shell)
    s = pane.server
    p = pane.pane_id
    command = f"echo begun; {s.binary} -S {s.socket_path} wait-for field-fg; echo resumed"
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        first = await call("run_shell_command", {"pane_id": p, "command": command, "timeout": 0})
        await shown(call, p, "begun")
        await call("send_keys", {"pane_id": p, "keys": ["C-z"]})
        stopped = await call("wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert stopped["outcome"] == "stopped" and "fg" in stopped["note"], stopped
        assert stopped["seconds"] < 8
        assert not any("_mx" in row or "printf" in row for row in pane.screen())
        await exact(call, p, "meanwhile")  # a stopped run does not hold the pane
        await call("send_keys", {"pane_id": p, "keys": ["fg"], "literal": True, "enter": True})
        s.cmd("wait-for", "-S", "field-fg")
        done = await call("wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert (done["outcome"], done["exit_status"]) == ("completed", 0), done
        assert done["output"][-1] == "resumed"
        await exact(call, p)


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash", "ksh"])
async def test_a_killed_frame_is_lost(stdio_client, rc_pane, shell):
    pane = rc_pane(shell)
    p = pane.pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        first = await call("run_shell_command",
                           {"pane_id": p, "command": "echo begun; sleep 100", "timeout": 0})
        await shown(call, p, "begun")
        shell_pid = int(pane.server.cmd("display", "-p", "-t", p, "#{pane_pid}"))
        frame_pid = min(children(shell_pid))  # the frame's subshell
        os.killpg(frame_pid, signal.SIGKILL)  # the frame, its subshell and the sleep
        lost = await call("wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert lost["outcome"] == "lost" and lost["reason"] == "frame_gone", lost
        assert "exit_status" not in lost
        await exact(call, p)


SIGNAL_CASES = [
    (PY_KI_5, "C-c", 5),
    # handled and exited 0 (a REPL left with exit() after C-c): the list goes on, as in bash
    (PY_KI_5.replace("sys.exit(5)", "sys.exit(0)") + "; echo went-on", "C-c", 0),
    ("trap 'echo caught' INT; echo {begun}; sleep 100; exit 0", "C-c", 0),
    ("echo {begun}; sleep 100; echo never", "C-c", 130),
    ("echo {begun}; while :; do :; done", "C-c", 130),
    # C-\ (SIGQUIT) ends sleep; the frame survives it (bash goes on with the list, as at
    # its prompt): the run completes with the list's own status, never lost.
    ("echo {begun}; sleep 100; exit 7", "C-\\", None),
]


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash", "ksh"])
async def test_statuses_after_c_c_are_the_commands_own(stdio_client, rc_pane, shell):
    p = rc_pane(shell).pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        for number, (text, key, status) in enumerate(SIGNAL_CASES):
            begun = f"begun-{number}"
            command = text.replace("{begun}", begun)
            run = await call("run_shell_command", {"pane_id": p, "command": command, "timeout": 0})
            await shown(call, p, begun)
            await call("send_keys", {"pane_id": p, "keys": [key]})
            done = await call("wait_for_run", {"run_id": run["run_id"], "timeout": 10})
            got = (done["outcome"], done.get("exit_status"))
            assert got == ("completed", status if status is not None else got[1]), (command, done)
            assert isinstance(got[1], int)
            assert "never" not in done["output"]
        # A program that handles SIGINT and goes on is still the run: not orphaned.
        repl = ("python3 -c \"import sys\nprint('repl-begun', flush=True)\nwhile True:\n    try:\n"
                "        line = sys.stdin.readline()\n    except KeyboardInterrupt:\n"
                "        print('ki', flush=True); continue\n    sys.exit(3)\"")
        run = await call("run_shell_command", {"pane_id": p, "command": repl, "timeout": 0})
        await shown(call, p, "repl-begun")
        await call("send_keys", {"pane_id": p, "keys": ["C-c"]})
        await shown(call, p, "ki")
        going = await call("wait_for_run", {"run_id": run["run_id"], "timeout": 0.5})
        assert going["outcome"] == "timed_out", going
        await call("send_keys", {"pane_id": p, "keys": ["quit"], "literal": True, "enter": True})
        done = await call("wait_for_run", {"run_id": run["run_id"], "timeout": 10})
        assert (done["outcome"], done["exit_status"]) == ("completed", 3), done
        await exact(call, p)


SCREENS = {
    "home": "printf 'a\\nb\\n\\033[H'",
    "cursor_up": "printf 'a\\nb\\nc\\n\\033[3A'",
    "scroll_region": "printf '\\033[2;4r\\033[3H'; seq 5; printf '\\033[r'",
    "alternate": "printf 'shown\\n\\033[?1049hhidden\\n\\033[?1049l'",
}


@pytest.mark.parametrize("case", sorted(SCREENS))
async def test_rewritten_screens_answer_honestly_and_quickly(stdio_client, rc_pane, case):
    p = rc_pane("bash").pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        await exact(call, p, "before")
        done = await call("run_shell_command", {"pane_id": p, "command": SCREENS[case]})
        assert (done["outcome"], done["exit_status"]) == ("completed", 0), done
        assert done["framed"] is False and done["lines_missed"] is True, done
        assert done["note"] and done["seconds"] < 5
        for word in ("after", "again"):
            later = await call("run_shell_command", {"pane_id": p, "command": f"echo {word}"})
            assert later["output"] == [word], later  # no other run's lines, ever


async def test_bash_err_and_debug_traps_see_only_the_command(stdio_client, rc_pane, tmp_path):
    log = tmp_path / "debug.log"
    rc = (f"set -ET\ntrap 'echo \"ERR:$BASH_COMMAND\"' ERR\n"
          f"trap 'echo \"$BASH_COMMAND\" >> {log}' DEBUG\n")
    pane = rc_pane("bash", rc)
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        log.write_text("")
        done = await call("run_shell_command", {"pane_id": pane.pane_id,
                                                "command": "false\necho after"})
        assert (done["output"], done["exit_status"]) == (["ERR:false", "after"], 0), done
        failed = await call("run_shell_command", {"pane_id": pane.pane_id, "command": "false"})
        assert (failed["output"], failed["exit_status"]) == (["ERR:false"], 1), failed
        assert (await call("run_shell_command", {"pane_id": pane.pane_id, "command": "true"})
                )["output"] == []
    seen = log.read_text().splitlines()
    assert "echo after" in seen and "false" in seen, seen
    # Nothing of the frame once the command's output began (its start marker).
    for frame_line in ("/cmd'", "_mxr", "wait-for", "printf", "\\unset"):
        assert not any(frame_line in line for line in seen), (frame_line, seen)


async def test_zsh_trapzerr_and_chpwd_fire_for_the_command_only(stdio_client, rc_pane):
    rc = "TRAPZERR() { echo ZERR }\nchpwd() { echo CHPWD $PWD }\n"
    p = rc_pane("zsh", rc).pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        failed = await call("run_shell_command", {"pane_id": p, "command": "false"})
        assert (failed["output"], failed["exit_status"]) == (["ZERR"], 1), failed
        moved = await call("run_shell_command", {"pane_id": p, "command": "cd /tmp"})
        assert moved["output"] == ["CHPWD /tmp"], moved
        assert (await call("run_shell_command", {"pane_id": p, "command": "true"}))["output"] == []


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash", "ksh"])
async def test_a_shell_still_starting_is_waited_for(stdio_client, rc_pane, shell):
    p = rc_pane(shell, "sleep 1", signal_first=True).pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        await exact(call, p, "started")


async def test_ksh_and_dash_statuses(stdio_client, rc_pane):
    panes = {shell: rc_pane(shell).pane_id for shell in ("ksh", "dash")}
    async with stdio_client(toolsets=TOOLSETS) as client:  # one server for both panes
        call = CheckedCalls(client)
        for shell, p in panes.items():
            got = await call("run_shell_command", {"pane_id": p, "command": "printf 'a\\nb\\n'"})
            assert (got["output"], got["exit_status"]) == (["a", "b"], 0)
            three = await call("run_shell_command", {"pane_id": p, "command": "echo x; exit 3"})
            assert (three["output"], three["exit_status"]) == (["x"], 3)
            assert (await call("run_shell_command", {"pane_id": p, "command": "false"})
                    )["exit_status"] == 1
            # A last command killed by a signal: 128+N; in ksh93 N, the low 8 bits of its
            # 256+N, which is all its `.` returns (docs/run-outcomes.md, a limit).
            killed = await call("run_shell_command", {"pane_id": p,
                                                      "command": "sh -c 'kill -TERM $$'"})
            assert killed["exit_status"] == (15 if shell == "ksh" else 143), killed
            assert not any("/frame:" in line for line in killed["output"]), killed


async def test_a_shell_that_cannot_read_the_frame_is_not_started(stdio_client, tmux_server):
    if os.geteuid() != 0:
        pytest.skip("needs root to start a shell as another user")
    p = tmux_server.cmd("new-session", "-d", "-P", "-F", "#{pane_id}",  # dash, as nobody
                        "exec setpriv --reuid=nobody --regid=nogroup --clear-groups "
                        "env PS1='$ ' dash -i").strip()
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        await shown(call, p, r"^\$", regex=True)
        local = {"pane_id": p, "command": "echo x", "frame": "local"}  # forced (issue 11)
        done = await call("run_shell_command", local)
        assert done["outcome"] == "not_started" and done["reason"] == "unreadable", done
        again = await call("run_shell_command", local)
        assert again["outcome"] == "not_started"  # never busy
        # By default another user's shell gets the typed frame (issue 11), and it runs.
        typed = await call("run_shell_command", {"pane_id": p, "command": "echo x"})
        assert (typed["outcome"], typed["frame"], typed["output"]) == ("completed", "typed", ["x"])

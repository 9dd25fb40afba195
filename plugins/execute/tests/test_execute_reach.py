"""run_shell_command through ssh, su - and in fish panes (issue 11): a real sshd on
127.0.0.1, real users, over the installed launcher's stdio."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from execute_kit import POSIX_QUOTING, QUOTING_OUT, call, run
from muxport.testing import CheckedCalls, ShellPane, eventually, launcher, reach
from muxport_execute.host import procs

FISH_QUOTING = (
    "set x (printf '%s' \"it's\")\n"
    'echo "$x" \'say "hi"\' (echo back)\n'
    "printf '%s\\n' 'a\tb' | od -An -tx1\n"
    "echo '#{pane_id}' \"#{pane_id}\" ; echo done"
)


def owned_files(uid: int, home: Path) -> set[tuple[str, float]]:
    """Every file of the test user under its home and the temporary directories."""
    found: set[tuple[str, float]] = set()
    for top in (home, Path("/tmp"), Path("/var/tmp"), Path("/dev/shm")):
        for root, dirs, files in os.walk(top):
            for name in dirs + files:
                path = Path(root) / name
                try:
                    info = path.lstat()
                except OSError:
                    continue
                if info.st_uid == uid:
                    found.add((str(path), info.st_mtime))
    return found


async def check_contract(client: Any, pane: str, fish: bool, frame: str) -> None:
    first = await run(client, pane, "printf 'a\\nb\\n'")
    assert (first["output"], first["exit_status"], first["outcome"]) == (["a", "b"], 0, "completed")
    assert first["framed"] is True and first["frame"] == frame
    assert (await run(client, pane, "false"))["exit_status"] == 1
    three = await run(client, pane, "echo bye; exit 3")
    assert (three["output"], three["exit_status"]) == (["bye"], 3)
    moved = await run(client, pane, "cd /; pwd")
    assert moved["output"] == ["/"]
    back = await run(client, pane, "pwd")
    assert back["output"] != ["/"]
    quoting = await run(client, pane, FISH_QUOTING if fish else POSIX_QUOTING)
    assert (quoting["output"], quoting["exit_status"]) == (QUOTING_OUT, 0)
    no_newline = await run(client, pane, "printf 'no newline'")
    assert no_newline["output"] == ["no newline"]


@pytest.mark.parametrize(
    ("how", "width"),
    [("ssh", 80), ("ssh", 40), ("su", 80), ("su", 40), ("ssh-fish", 80), ("su-fish", 40)],
)
async def test_typed_frame_through_ssh_and_su(
    stdio_client, reach_pane, tmux_server, test_user, fish_user, how, width
):
    pane = reach_pane(how, width=width)
    fish = how.endswith("fish")
    user = fish_user if fish else test_user
    carrier = tmux_server.cmd("display", "-p", "-t", pane.pane_id, "#{pane_current_command}")
    async with stdio_client(toolsets=["execute"]) as client:
        # The far shell's own start-up files (fish writes some once it has drawn its
        # first prompt) are written by the time a first run has answered.
        assert (await run(client, pane.pane_id, "true"))["exit_status"] == 0
        before = owned_files(user.uid, user.home)
        await check_contract(client, pane.pane_id, fish, "typed")
        who = await run(client, pane.pane_id, "id -un")
        assert who["output"] == [user.name]
        # The session survived exit 3: the same carrier is still in the foreground.
        assert tmux_server.cmd(
            "display", "-p", "-t", pane.pane_id, "#{pane_current_command}"
        ) == carrier
        history = "history | grep -c printf || true" if not fish else (
            "history search --contains printf | count"
        )
        kept = await run(client, pane.pane_id, history)
        assert kept["output"] == ["0"]
    new = {path for path, _ in owned_files(user.uid, user.home) - before}
    if fish:  # fish (re)writes its history file after a space-led line too: keeping none
        history_file = user.home / ".local/share/fish/fish_history"
        if history_file.exists():
            assert "printf" not in history_file.read_text()
        new -= {str(history_file), str(history_file.parent)}
    assert new == set()


async def test_local_fish_pane_and_forced_frames(stdio_client, fish_pane, shell_pane):
    fish = fish_pane(width=40).pane_id
    bash = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        await check_contract(client, fish, True, "local")
        typed = await run(client, fish, "echo $status; exit 5", frame="typed")
        assert (typed["frame"], typed["output"], typed["exit_status"]) == ("typed", ["0"], 5)
        forced = await run(client, bash, "printf 'a\\nb\\n'; exit 4", frame="typed")
        assert (forced["frame"], forced["output"], forced["exit_status"]) == (
            "typed", ["a", "b"], 4
        )
        local = await run(client, bash, "echo here", frame="local")
        assert (local["frame"], local["output"]) == ("local", ["here"])


async def test_typed_frame_refusals(stdio_client, reach_pane):
    pane = reach_pane("ssh").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        local = await client.call_tool(
            "run_shell_command", {"pane_id": pane, "command": "true", "frame": "local"}
        )
        assert local.is_error and local.meta["reason"] == "local_frame_unreachable"
        long = await client.call_tool(
            "run_shell_command", {"pane_id": pane, "command": "echo '" + "x" * 5000 + "'"}
        )
        assert long.is_error and long.meta["reason"] == "typed_too_long"
        assert "4000" in long.content[0].text
        after = await run(client, pane, "echo still")
        assert after["output"] == ["still"]


async def test_capabilities_and_doctor_name_the_frames(stdio_client, tmux_server):
    async with stdio_client(toolsets=["execute"]) as client:
        resource = await client.read_resource("tmux://capabilities")
        facts = json.loads(resource.contents[0].text)["toolset_facts"]["execute"]
    frames = facts["frames"]
    assert frames["typed"]["available"] is True and "ssh" in frames["typed"]["carriers"]
    assert frames["typed"]["max_typed_chars"] == 4000
    assert "bash" in frames["local"]["shells_installed"]
    assert facts["waiting_for_input"]["available"] is True  # Linux /proc, as here and in CI


def test_doctor_names_the_frames(tmux_server):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    env["LIBTMUX_SOCKET_PATH"] = tmux_server.socket_path
    done = subprocess.run([launcher(), "doctor"], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "execute frames: " in done.stdout and '"carriers": ["doas"' in done.stdout
    assert "execute waiting_for_input: " in done.stdout


async def test_interrupted_and_full_screen_over_ssh(stdio_client, reach_pane):
    pane = reach_pane("ssh").pane_id
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        long = await run(client, pane, "echo begun; sleep 30", timeout=0.5)
        assert (long["outcome"], long["frame"]) == ("timed_out", "typed")
        await call(client, "send_keys", {"pane_id": pane, "keys": ["C-c"]})
        stopped = await call(client, "wait_for_run", {"run_id": long["run_id"], "timeout": 20})
        assert (stopped["outcome"], stopped["exit_status"]) == ("completed", 130)
        assert stopped["output"] in (["begun"], ["begun", "^C"])  # the far tty echoes ^C
        # A pager started by hand (not by a run): the far side shows a full screen.
        pager = "printf 'pager-on\\n' | less; echo pag''ER-off"
        await call(client, "send_keys",
                   {"pane_id": pane, "keys": [pager], "literal": True, "enter": True})
        seen = await call(client, "wait_for_text", {"pane_id": pane, "patterns": ["pager-on"],
                                                    "timeout": 20})
        assert seen["outcome"] in ("matched", "present_at_entry")
        refused = await run(client, pane, "true")
        assert refused["outcome"] == "not_started" and "alternate screen" in refused["note"]
        await call(client, "send_keys", {"pane_id": pane, "keys": ["q"]})
        off = await call(client, "wait_for_text", {"pane_id": pane, "patterns": ["pagER-off"],
                                                   "timeout": 20})
        assert off["outcome"] in ("matched", "present_at_entry")
        assert (await run(client, pane, "echo back"))["output"] == ["back"]


# Issue 11's leftovers: the typed frame checks the far line before typing, and ends
# lost or stopped like a local run (docs/run-outcomes.md, "Typed frames").


async def reason_of(client: Any, pane: str) -> tuple[str, str]:
    """Why ``echo x`` was not run: a refusal's reason, or a not_started answer's."""
    result = await client.call_tool("run_shell_command", {"pane_id": pane, "command": "echo x"})
    if result.is_error:
        return str((result.meta or {}).get("reason")), result.content[0].text
    answer = result.structured_content
    assert answer["outcome"] == "not_started", answer
    return "not_started:" + answer["reason"], answer["note"]


async def shown(call: CheckedCalls, pane: str, text: str) -> None:
    seen = await call("wait_for_text", {"pane_id": pane, "patterns": [text], "regex": True,
                                        "timeout": 10})
    assert seen["outcome"] in ("matched", "present_at_entry"), seen


async def exact(call: CheckedCalls, pane: str, word: str, frame: str = "typed") -> None:
    """The next run on ``pane`` succeeds with exact output."""
    done = await call("run_shell_command", {"pane_id": pane, "command": f"echo {word}"})
    assert (done["outcome"], done["output"], done["exit_status"], done["frame"]) == (
        "completed", [word], 0, frame
    ), done
    assert done["framed"] is True


# What the far side shows, how the test waits for it, the refusal expected (ssh, su: under
# su the foreground program is the far program itself, which tmux can name) and the key
# that leaves it.
FAR_STATES = [
    ("echo 'open", r"^> ?$", {"not_at_prompt"}, "C-c"),
    ("printf 'wait''ing\\n'; read x", r"^waiting$", {"not_at_prompt"}, "C-c"),
    ("python3 -q", r"^>>>", {"not_at_prompt", "not_a_shell"}, "C-d"),
    ("sudo -k; sudo true", r"password for", {"not_at_prompt", "not_started:secret_prompt"},
     "C-c"),
]


@pytest.mark.parametrize("how", ["ssh", "su"])
async def test_typed_frame_checks_the_far_line_first(stdio_client, reach_pane, how):
    pane = reach_pane(how)
    p = pane.pane_id
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        call = CheckedCalls(client)
        await call("send_keys", {"pane_id": p, "keys": ["echo half-typed"], "literal": True})
        await shown(call, p, "echo half-typed$")
        await exact(call, p, "one")  # this server's own text: cleared with C-c first
        pane.type("echo not-mine", enter=False)  # a person's text: refused, never joined
        await shown(call, p, "echo not-mine$")
        reason, text = await reason_of(client, p)
        assert reason == "line_not_empty" and "echo not-mine'" in text, text
        assert [row for row in pane.screen() if row.strip()][-1].endswith("echo not-mine")
        await call("send_keys", {"pane_id": p, "keys": ["C-c"]})
        await exact(call, p, "two")
        for setup, wait, expected, leave in FAR_STATES:
            pane.type(setup)
            await shown(call, p, wait)
            reason, text = await reason_of(client, p)
            assert reason in expected, (setup, reason, text)
            await call("send_keys", {"pane_id": p, "keys": [leave]})
            await at_prompt(pane)
            await exact(call, p, "after")
        # vi command mode entered by someone else cannot be seen: nothing runs there
        # (the line's "/" searches the history), and the run ends not_started.
        pane.type("set -o vi")
        await exact(call, p, "vi")
        await call("send_keys", {"pane_id": p, "keys": ["echo more", "Escape"]})  # our own
        await exact(call, p, "cleared")
        pane.type("", enter=False)
        pane.server.cmd("send-keys", "-t", p, "Escape")
        reason, text = await reason_of(client, p)
        assert reason.startswith("not_started:") and "C-c" in text, text
        await call("send_keys", {"pane_id": p, "keys": ["C-c"]})
        await exact(call, p, "three")
        assert not any(row.strip() == "x" for row in pane.screen())  # echo x never ran


async def at_prompt(pane: ShellPane) -> None:
    """Wait until the far shell shows its prompt again (the program has left)."""
    def last_row() -> str:
        rows = [row.rstrip() for row in pane.screen() if row.strip()]
        return rows[-1] if rows else ""

    await eventually(last_row, lambda row: row.endswith("$"), what="the far prompt")


def processes(matches: Callable[[os.DirEntry[str], bytes], bool]) -> list[int]:
    """The pids whose /proc entry and command line (NUL-separated) ``matches``."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    if matches(entry, f.read()):
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def far_processes(uid: int, argv: list[str]) -> list[int]:
    """Processes of ``uid`` running exactly ``argv`` (the far side is on this machine)."""
    wanted = "\0".join(argv).encode() + b"\0"
    return processes(lambda entry, line: line == wanted and entry.stat().st_uid == uid)


@pytest.mark.parametrize("how", ["ssh", "su"])
async def test_typed_frame_killed_or_stopped(stdio_client, reach_pane, test_user, how):
    p = reach_pane(how).pane_id
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        call = CheckedCalls(client)
        begun = await run(client, p, "echo begun; sleep 41", timeout=1)
        assert begun["outcome"] == "timed_out"
        sleeper = (await eventually(lambda: far_processes(test_user.uid, ["sleep", "41"]),
                                    what="the far sleep"))[0]
        group = procs.stat(sleeper)
        assert group is not None
        os.killpg(group.pgrp, signal.SIGKILL)  # the far frame, all of it
        lost = await call("wait_for_run", {"run_id": begun["run_id"], "timeout": 10})
        assert (lost["outcome"], lost["reason"], lost.get("exit_status")) == (
            "lost", "frame_gone", None
        ), lost
        await exact(call, p, "after-kill")

        quit_run = await run(client, p, "echo q; sleep 44", timeout=1)
        await call("send_keys", {"pane_id": p, "keys": ["C-\\"]})  # SIGQUIT: the frame stays
        quitted = await call("wait_for_run", {"run_id": quit_run["run_id"], "timeout": 10})
        assert (quitted["outcome"], quitted["exit_status"]) == ("completed", 131), quitted

        long = await run(client, p, "echo a; sleep 42; echo b", timeout=1)
        await call("send_keys", {"pane_id": p, "keys": ["C-z"]})
        stopped = await call("wait_for_run", {"run_id": long["run_id"], "timeout": 10})
        assert stopped["outcome"] == "stopped" and "fg" in stopped["note"], stopped
        await exact(call, p, "meanwhile")  # a stopped run does not hold the pane
        await call("send_keys", {"pane_id": p, "keys": ["fg", "Enter"]})
        again = await call("wait_for_run", {"run_id": long["run_id"], "timeout": 1})
        assert again["outcome"] == "timed_out", again
        await call("send_keys", {"pane_id": p, "keys": ["C-c"]})
        done = await call("wait_for_run", {"run_id": long["run_id"], "timeout": 10})
        # the job lines, the fg line and the run made meanwhile are left out
        assert (done["outcome"], done["exit_status"], done["framed"]) == (
            "completed", 130, True
        ), done
        assert done["output"] in (["a"], ["a", "^C"]) and "left out" in done["note"], done
        await exact(call, p, "after-stop")
    assert far_processes(test_user.uid, ["sleep", "42"]) == []


def reach_from(pane: ShellPane, how: str, sshd: reach.SshdProcess,
               user: reach.TestUser) -> None:
    """Type ssh or su into a local shell; return once the far shell is ready."""
    fifos = Path(tempfile.mkdtemp(prefix="muxport-ready-"))
    fifos.chmod(0o755)
    try:
        fifo = reach.ReadyFifo(fifos)
        if how == "ssh":
            argv = sshd.command(user.name, fifo.path)
        else:
            argv = ["env", f"MXREADY={fifo.path}", "su", "-", "-w", "MXREADY", user.name]
        pane.type(" ".join(shlex.quote(word) for word in argv))
        fifo.wait(how)
    finally:
        shutil.rmtree(fifos, ignore_errors=True)


@pytest.mark.parametrize("how", ["ssh", "su"])
async def test_far_side_ending_under_a_run_is_lost(stdio_client, shell_pane, sshd, test_user,
                                                   how):
    pane = shell_pane("bash")  # a local shell that runs ssh or su (not exec: it comes back)
    reach_from(pane, how, sshd, test_user)
    p = pane.pane_id
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        call = CheckedCalls(client)
        begun = await run(client, p, "echo begun; sleep 43", timeout=1)
        assert (begun["outcome"], begun["frame"]) == ("timed_out", "typed")
        if how == "ssh":  # the connection drops; ssh exits
            ends = await eventually(lambda: session_processes(test_user.name),
                                    what="the sshd session")
            for pid in ends:
                os.kill(pid, signal.SIGKILL)
        else:  # the far login shell is killed; su exits (the frame is left running)
            shells = far_processes(test_user.uid, ["-bash"])  # the login shell and the frame's
            login = [pid for pid in shells if procs.command_name(parent(pid)) == "su"]
            assert len(login) == 1, shells
            os.kill(login[0], signal.SIGKILL)
        lost = await call("wait_for_run", {"run_id": begun["run_id"], "timeout": 10})
        assert (lost["outcome"], lost.get("reason")) == ("lost", "far_side_gone"), lost
        assert ("ssh is no longer" if how == "ssh" else "far shell ended") in lost["note"]
        await exact(call, p, "local-again", frame="local")
    if how == "su":  # orphans of the killed shell: what "may still run" in the note
        for pid in far_processes(test_user.uid, ["sleep", "43"]) + far_processes(
            test_user.uid, ["-bash"]
        ):
            os.kill(pid, signal.SIGKILL)
    await eventually(lambda: far_processes(test_user.uid, ["sleep", "43"]), lambda v: v == [],
                     what="the far sleep to end with its session")


def parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return int(f.read().rpartition(b")")[2].split()[1])


def session_processes(user: str) -> list[int]:
    """The sshd processes serving ``user``'s connections (``sshd: user@pts/N``)."""
    return processes(lambda _, line: line.startswith(f"sshd: {user}@".encode()))


@pytest.mark.parametrize("shell", ["zsh", "fish"])
async def test_typed_frame_stopped_in_zsh_and_fish(stdio_client, rc_pane, fish_pane, shell):
    """zsh and fish do not go on with the typed list when a job stops; their job lines
    (which quote the frame) say stopped and resumed."""
    pane = rc_pane("zsh") if shell == "zsh" else fish_pane()
    p = pane.pane_id
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        call = CheckedCalls(client)
        long = await run(client, p, "echo a; sleep 45; echo b", timeout=1, frame="typed")
        assert (long["outcome"], long["frame"]) == ("timed_out", "typed"), long
        await call("send_keys", {"pane_id": p, "keys": ["C-z"]})
        stopped = await call("wait_for_run", {"run_id": long["run_id"], "timeout": 10})
        assert stopped["outcome"] == "stopped" and "fg" in stopped["note"], stopped
        await call("send_keys", {"pane_id": p, "keys": ["fg", "Enter"]})
        again = await call("wait_for_run", {"run_id": long["run_id"], "timeout": 1})
        assert again["outcome"] == "timed_out", again
        await call("send_keys", {"pane_id": p, "keys": ["C-c"]})
        done = await call("wait_for_run", {"run_id": long["run_id"], "timeout": 10})
        ended = (done["outcome"], done["exit_status"], done["framed"])
        assert ended == ("completed", 130, True), done
        assert done["output"] in (["a"], ["a", "^C"]) and "left out" in done["note"], done
        await exact(call, p, "after-stop", frame="local")


async def test_a_carriers_question_is_refused_then_answered(
    stdio_client, tmux_server, sshd, test_user
):
    """ssh asks whether to trust the host key: a question, never typed into."""
    argv = ["ssh", "-F", "/dev/null", "-t", "-p", str(sshd.port), "-i", str(sshd.key),
            "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=ask",
            "-o", "LogLevel=ERROR", f"{test_user.name}@127.0.0.1"]
    out = tmux_server.cmd("new-session", "-d", "-P", "-F", "#{pane_id} #{window_id} #{session_id}",
                          "-x", "80", "-y", "24", " ".join(map(shlex.quote, argv)))
    pane = ShellPane(tmux_server, *out.split(), "bash", 80)
    p = pane.pane_id
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        call = CheckedCalls(client)
        await shown(call, p, r"continue connecting \(yes/no")
        reason, text = await reason_of(client, p)
        assert reason == "not_at_prompt" and "question" in text, text
        assert not any("printf" in row for row in pane.screen())  # nothing was typed
        await call("send_keys", {"pane_id": p, "keys": ["yes", "Enter"]})
        await at_prompt(pane)
        await exact(call, p, "trusted")

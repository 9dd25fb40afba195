"""run_shell_command through ssh, su - and in fish panes (issue 11): a real sshd on
127.0.0.1, real users, over the installed launcher's stdio."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from execute_kit import POSIX_QUOTING, QUOTING_OUT, call, run
from muxport.testing import launcher

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

"""No muxport line in a shell's history (issue 19; docs/runs-and-waits.md, "Shell
history"): a person types a command, three runs follow, the person types another, lists
the shell's history to a file and exits. The listing (the shell's list in memory) and the
history file (written by then, the shell having exited) hold the person's two commands
and none of muxport's typed lines, each shell with the history options users set, or
exactly the lines this file says a shell keeps and why (frames/history.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from execute_kit import run
from muxport.testing import CheckedCalls, ShellPane, TmuxServer, eventually

pytestmark = pytest.mark.timeout(120)
MINE = ("echo mine-before", "echo mine-after")
RUNS = 3


@dataclass(frozen=True)
class Case:
    shell: str
    rc: str  # the user's rc file (after the test kit's prompt line)
    listing: str  # what the person types to list the history in memory
    kept: int = 0  # muxport lines the shell keeps in memory (a known limit: see below)
    reader: str = "text"  # how the file is read: as text, by a fresh shell, or none is made


ZSH = "HISTSIZE=100; SAVEHIST=100\n"
CASES = {
    "bash": Case("bash", "", "history"),
    "bash-ignoreboth": Case("bash", "HISTCONTROL=ignoreboth", "history"),
    "bash-history-a": Case("bash", "shopt -s histappend; PROMPT_COMMAND='history -a'",
                           "history"),
    "zsh-ignorespace": Case("zsh", ZSH + "setopt histignorespace", "fc -ln 1"),
    # zsh cannot delete an entry: the first run copies the list without its line back
    # in; a hook keeps later runs out (frames/history.py). Where the file is written:
    # at exit (APPEND_HISTORY, zsh's default), at once, or shared.
    "zsh": Case("zsh", ZSH, "fc -ln 1"),
    "zsh-no-append": Case("zsh", ZSH + "unsetopt appendhistory", "fc -ln 1"),
    "zsh-inc-append": Case("zsh", ZSH + "setopt incappendhistory", "fc -ln 1"),
    "zsh-share": Case("zsh", ZSH + "setopt sharehistory extendedhistory", "fc -ln 1"),
    "ksh93": Case("ksh", "", "hist -ln 1", reader="ksh93"),
    "mksh": Case("mksh", "HISTSIZE=100", "fc -ln 1"),
    "yash": Case("yash", "HISTSIZE=100", "fc -ln 1", reader="yash"),
    "yash-histspace": Case("yash", "HISTSIZE=100; set -o histspace", "fc -ln 1"),
    # Debian's dash has no line editor, so no history at all: fc is not found.
    "dash": Case("dash", "", "{ fc -l 2>&1; }", reader="none"),
    # busybox sh keeps every line in its list, and has no way to edit it; this build
    # writes no history file (its binary knows no HISTFILE).
    "busybox": Case("busybox", "", "history", kept=RUNS, reader="none"),
}
# Where a fresh shell reads the file, the deletion records (yash ``d<n>``, ksh93's undo)
# hide the lines, whose text stays in the file until the shell rewrites it.
READERS = {"ksh93": ["ksh93", "-ic", "hist -ln 1"], "yash": ["yash", "-i", "-c", "fc -ln 1"]}


def muxport_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "mxr-" in line]


def mine_once(text: str) -> bool:
    """Each of the person's commands is there exactly once (a zsh frame subshell's exit
    once appended them again per run: frames/local_text.py, NO_RCS)."""
    return all(text.count(mine) == 1 for mine in MINE)


async def runs_between_mine(
    stdio_client: Any, tmux_server: TmuxServer, pane: ShellPane, listing: str, where: str,
    person_first: bool = True,
) -> str:
    """The person's command (unless not ``person_first``: the runs are the shell's first
    lines), three runs, the person's other command, the listing (to ``where``/listed) and
    exit; returns the listing once the shell has exited."""
    if person_first:
        pane.run(MINE[0])
    async with stdio_client(toolsets=["execute"]) as client:
        for n in range(RUNS):
            done = await run(client, pane.pane_id, f"echo run-{n}")
            assert (done["outcome"], done["output"]) == ("completed", [f"run-{n}"]), done
    pane.run(MINE[1])
    pane.type(f"{listing} >{where}/listed; exit")

    def alive() -> bool:
        # no session left: tmux says "no current target" (exit-empty is off)
        listed = tmux_server.cmd("list-panes", "-a", "-F", "#{pane_id}", check=False)
        return pane.pane_id in listed.split()

    await eventually(alive, lambda up: not up, what=f"{pane.shell} to exit")
    return (Path(where) / "listed").read_text(errors="replace")


def home_of(tmux_server: TmuxServer) -> Path:
    homes = list(tmux_server.dir.glob("field*"))
    assert len(homes) == 1, homes
    return homes[0]


@pytest.mark.parametrize("name", list(CASES))
async def test_no_muxport_line_in_the_history(stdio_client, rc_pane, tmux_server, name):
    case = CASES[name]
    pane = rc_pane(case.shell, case.rc)
    home = home_of(tmux_server)
    listed = await runs_between_mine(stdio_client, tmux_server, pane, case.listing, str(home))
    history = home / "history"
    if case.shell == "dash":
        assert "not found" in listed and not history.exists(), listed
        return
    assert mine_once(listed), listed
    assert len(muxport_lines(listed)) == case.kept, listed
    if case.reader == "none":
        assert not history.exists()
        return
    raw = history.read_bytes().decode(errors="replace")
    assert mine_once(raw), raw
    if case.reader == "text":
        assert muxport_lines(raw) == [], raw
        return
    # the text stays, with a record that deletes it (yash) or undoes it (ksh93)
    assert len(muxport_lines(raw)) == RUNS, raw
    copy = home / "read-back"  # an interactive reader adds its own line to the file
    shutil.copy(history, copy)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "HISTFILE": str(copy)}
    with anyio.fail_after(20):
        read = await anyio.run_process(READERS[case.reader], env=env, stdin=subprocess.DEVNULL)
    fresh = read.stdout.decode(errors="replace")
    assert mine_once(fresh) and muxport_lines(fresh) == [], fresh


@pytest.mark.parametrize("name", ["zsh", "zsh-no-append", "zsh-inc-append", "zsh-share"])
async def test_a_zsh_whose_first_line_is_a_run(stdio_client, rc_pane, tmux_server, name):
    """A zsh with no history yet (a new user, a fresh container) whose first line is a run
    (issue 30): the list held only that line, the copy read back held nothing, and zsh
    kept the line, in memory and, appending at exit, in the file."""
    case = CASES[name]
    pane = rc_pane(case.shell, case.rc)
    home = home_of(tmux_server)
    listed = await runs_between_mine(stdio_client, tmux_server, pane, case.listing, str(home),
                                     person_first=False)
    raw = (home / "history").read_text(errors="replace")
    for text in (listed, raw):
        assert muxport_lines(text) == [] and text.count(MINE[1]) == 1, text


async def test_fish_keeps_no_muxport_line(stdio_client, fish_pane, tmux_server):
    pane = fish_pane()
    data = next(tmux_server.dir.glob("fish-*"))
    listed = await runs_between_mine(stdio_client, tmux_server, pane, "history", str(data))
    raw = (data / "fish" / "fish_history").read_text()
    for text in (listed, raw):
        assert mine_once(text) and muxport_lines(text) == [], text


async def test_without_suppress_history_the_line_is_kept(stdio_client, rc_pane, tmux_server):
    """The deletion is the option's doing: a run that asks to be kept is kept (yash, which
    records every line)."""
    pane = rc_pane("yash", "HISTSIZE=100")
    async with stdio_client(toolsets=["execute"]) as client:
        await run(client, pane.pane_id, "true", suppress_history=False)
        listed = await run(client, pane.pane_id, "fc -ln 1")
    assert len(muxport_lines("\n".join(listed["output"]))) == 1, listed


async def test_zsh_keeps_the_users_older_lines_in_order(stdio_client, rc_pane, tmux_server):
    """The copy zsh's first run puts in the list's place holds every line of the list, in
    order, and the file keeps their times (EXTENDED_HISTORY): 40 lines read at startup."""
    old = [f"echo old-{n}" for n in range(1, 41)]
    fill = "for n in {1..40}; do print -r -- \": $((1700000000 + n)):0;echo old-$n\"; done"
    rc = ZSH + f"setopt extendedhistory\n{fill} >$HISTFILE"
    pane = rc_pane("zsh", rc)
    home = home_of(tmux_server)
    listed = await runs_between_mine(stdio_client, tmux_server, pane, "fc -ln 1", str(home))
    raw = (home / "history").read_text()
    for text in (listed, raw):
        lines = [line.split(";", 1)[-1] for line in text.splitlines()]
        assert [line for line in lines if line.startswith("echo old-")] == old, text
        assert mine_once(text) and muxport_lines(text) == [], text
    assert ": 1700000001:0;echo old-1\n" in raw


@pytest.mark.parametrize("how", ["ssh", "su"])
async def test_typed_runs_leave_no_line_in_a_far_bash(stdio_client, reach_pane, test_user, how):
    """A far bash without ignorespace (the person unsets the skeleton's HISTCONTROL): the
    typed frame drops its line and the probe's from the far shell's history."""
    pane = reach_pane(how)

    async def typed(line: str, shown: str) -> None:
        pane.type(line)
        await eventually(lambda: pane.screen().count(shown), lambda n: n >= 1, what=shown)

    # the user and its history file live for the session: this test's own words
    before, after = f"mine-before-{how}", f"mine-after-{how}"
    await typed(f"unset HISTCONTROL; echo {before}", before)
    async with stdio_client(toolsets=["execute"]) as client:
        for n in range(RUNS):
            done = await run(client, pane.pane_id, f"echo run-{n}")
            assert (done["frame"], done["output"]) == ("typed", [f"run-{n}"]), done
    await typed(f"echo {after}", after)
    listed = test_user.home / f"listed-{how}"
    await typed(f"history >{listed}; echo listed", "listed")
    text = listed.read_text()
    assert text.count(f"echo {before}") == 1 and text.count(f"echo {after}") == 1, text
    # every typed line and probe starts with ": /;" (other tests' people typed printf)
    assert ": /;" not in text, text


@pytest.mark.parametrize("first", [False, True])
async def test_no_muxport_line_in_a_far_zsh_behind_su(stdio_client, reach_pane, test_user, first):
    """A typed frame (su carries the shell) into a zsh without HIST_IGNORE_SPACE: the
    probe finds zsh, and the program keeps its line and the probe's out of the list and
    the file (frames/history.py, ``zsh_typed``); also where the runs are the new zsh's
    first lines (``first``: no history yet)."""
    p = reach_pane("su").pane_id
    listed, history = (test_user.home / f"zsh-{what}-{first}" for what in ("listed", "history"))
    (test_user.home / ".zshrc").write_text(ZSH + f"HISTFILE={history}\n")  # zsh -f saves none
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        call = CheckedCalls(client)

        async def person(line: str, shows: str) -> None:
            await call("send_keys", {"pane_id": p, "keys": [line, "Enter"]})
            seen = await call("wait_for_text", {"pane_id": p, "patterns": [shows],
                                                "timeout": 10})
            assert seen["outcome"] in ("matched", "present_at_entry"), seen

        await call("send_keys", {"pane_id": p, "keys": [
            f"exec env ZDOTDIR={test_user.home} zsh", "Enter"]})
        if not first:
            await person("echo before-$((6*7))", "before-42")
        for n in range(RUNS):
            done = await run(client, p, f"echo run-{n}")
            assert (done["frame"], done["output"]) == ("typed", [f"run-{n}"]), done
        await person("echo after-$((6*7))", "after-42")
        await call("send_keys", {"pane_id": p, "keys": [f"fc -ln 1 >{listed}; exit", "Enter"]})
        await eventually(lambda: history.exists() and "after" in history.read_text(),
                         what="zsh to write its history file at exit")
    for text in (listed.read_text(), history.read_text()):
        assert [row for row in text.splitlines() if ": /;" in row] == [], text
        assert text.count("echo before-") == (not first), text
        assert text.count("echo after-") == 1, text

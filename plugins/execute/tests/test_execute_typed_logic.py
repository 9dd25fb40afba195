"""The typed frame's pure logic (typed_frame.py, typed_check.py, typed_end.py): what a
far cursor row asks for, the far shell's last marker, a resumed job. No tmux."""

from __future__ import annotations

import pytest
from muxport_execute.frames.base import extract
from muxport_execute.frames.typed_check import far_program
from muxport_execute.frames.typed_end import STOP_STATUSES, job_state
from muxport_execute.frames.typed_text import VI_SAFE, new_typed_frame, probed


@pytest.mark.parametrize("row", [
    "$ ", "user@host:~$ ", "root@box:/# ", "% ", "~ ❯ ", "bob@box ~> ", "[deploy@web1 app]$ ",
])
def test_shell_prompts_are_typed_into(row):
    assert far_program(row) is None


@pytest.mark.parametrize(("row", "asks"), [
    ("", "nothing"),
    (">>> ", "REPL"), ("... ", "REPL"), ("> ", "REPL"), ("In [3]: ", "REPL"),
    ("irb(main):001:0> ", "REPL"), ("mysql> ", "REPL"), ("MariaDB [(none)]> ", "REPL"),
    ("postgres=# ", "REPL"), ("(gdb) ", "REPL"), ("(Pdb) ", "REPL"), ("iex(1)> ", "REPL"),
    ("[sudo] password for bob: ", "secret"), ("Password:", "secret"),
    ("Enter passphrase for key '/root/.ssh/id_ed25519': ", "secret"),
    ("Do you want to continue? [Y/n] ", "question"),
    ("Are you sure you want to continue connecting (yes/no/[fingerprint])? ", "question"),
])
def test_other_programs_prompts_are_refused(row, asks):
    what = far_program(row)
    assert what is not None and asks in what, (row, what)


@pytest.mark.parametrize(("row", "shell", "asks"), [
    # tmux names fish in the foreground (su, a far server's fish): its prompts, however
    # they end (fish's "informative" prompt's second row is a bare ">")
    ("> ", "fish", None), ("vm> ", "fish", None), ("bob@box ~> ", "-fish", None),
    (">>> ", "fish", None),
    # a POSIX shell named: a REPL would be named instead, but its PS2 is a bare ">"
    ("mybox> ", "bash", None), ("postgres=# ", "zsh", None), ("> ", "bash", "REPL"),
    (">>> ", "bash", "REPL"),
    # a carrier: the far program is unknown, its text decides
    ("> ", "ssh", "REPL"), ("vm> ", "su", "REPL"), (">>> ", "sudo", "REPL"),
    ("[sudo] password for bob: ", "fish", "secret"),
    ("Do you want to continue? [Y/n] ", "bash", "question"),
])
def test_a_named_shell_s_prompt_is_its_own(row, shell, asks):
    what = far_program(row, shell)
    if asks is None:
        assert what is None, (row, shell, what)
    else:
        assert what is not None and asks in what, (row, shell, what)


def test_the_far_shell_marks_how_the_frame_left():
    frame = new_typed_frame("posix")
    program = frame.program("sleep 1")
    last = program.splitlines()[-1]
    assert last == f"printf '%s%s:x:%s\\n' {frame.halves} \"$?\""
    assert frame.nonce not in program  # only its halves: no echo can be a marker
    assert frame.left_status(["out", f"{frame.nonce}:x:137", "$ "]) == 137
    assert frame.left_status([f"^Z{frame.nonce}:x:148"]) == 148  # dash: after the ^Z echo
    assert frame.left_status([f"{new_typed_frame('posix').nonce}:x:137"]) is None
    assert 148 in STOP_STATUSES and 137 not in STOP_STATUSES
    assert frame.typed_line("true", True).startswith(" " + VI_SAFE + "eval ")
    assert frame.probe_line().startswith(" " + VI_SAFE + "printf ")


def test_the_probe_tells_posix_fish_and_zsh_and_only_zsh_gets_its_history_part():
    frame = new_typed_frame("posix")
    answers = {"": ("posix", False), "5.9": ("posix", True)}
    for zsh, (kind, is_zsh) in answers.items():
        found = probed(frame, ["$ ", f"{frame.nonce}:p::{zsh}", "$ "])
        assert found is not None and (found.kind, found.zsh) == (kind, is_zsh)
    fish = probed(frame, [f"{frame.nonce}:p:3.6.0:"])
    assert fish is not None and fish.kind == "fish"
    assert probed(frame, [f"{new_typed_frame('posix').nonce}:p::"]) is None
    found = probed(frame, [f"{frame.nonce}:p::5.9"])
    assert found is not None and "zshaddhistory" in found.program("true")
    assert "zshaddhistory" not in frame.program("true")
    # a command that leaves no room for zsh's part is typed without it
    long = "echo " + "x" * 2800
    assert len(found.typed_line(long, True)) <= 4000
    assert "zshaddhistory" not in found.program(long, with_zsh=False)
    assert "zshaddhistory" not in found.program("true", suppress_history=False)
    assert "unsetopt rcs" in found.program("true") and "rcs" not in frame.program("true")


def test_the_far_shells_job_lines_tell_stopped_from_resumed():
    frame = new_typed_frame("posix")
    job = f"( trap 'printf \"%s%s:e:%s\\n\" {frame.halves} \"$?\"' EXIT; trap : INT ... )"
    before = ["$  : /;eval \"$(printf '...')\"", frame.start_marker, "a"]
    assert job_state(frame, before) is None
    bash = [*before, "^Z", f"[1]+  Stopped                 {job}", f"{frame.nonce}:x:148", "$ "]
    assert job_state(frame, bash) == "stopped"
    assert job_state(frame, [*bash[:-1], "$ fg", job]) == "running"
    assert job_state(frame, [*bash[:-1], "$ fg", job, "^Z", f"[1]+  Stopped  {job}"]) == (
        "stopped"
    )
    zsh = [*before, f"^Zzsh: suspended  {job}", "% fg", f"[1]  + continued  {job}"]
    assert job_state(frame, zsh[:-2]) == "stopped" and job_state(frame, zsh) == "running"
    fish = [*before, f"fish: Job 1, 'sh -c (printf \\'(trap \\047 {frame.halves}' has stopped"]
    assert job_state(frame, fish) == "stopped"
    other = new_typed_frame("posix")  # another run's job line says nothing about this one
    assert job_state(frame, [*before, f"[1]+  Stopped  ( {other.halves} )"]) is None


def test_a_resumed_runs_output_is_its_own_through_jobs_and_fg():
    """C-z, ``jobs`` (which says stopped again), ``fg``: only what the run printed stays;
    a row that names the job without saying stopped first (fish's ``ps``) is output."""
    frame = new_typed_frame("posix")
    job = f"( trap 'printf \"%s%s:e:%s\\n\" {frame.halves} \"$?\"' EXIT; trap : INT ... )"
    rows = [frame.start_marker, "before", "^Z", f"[1]+  Stopped                 {job}",
            "$ jobs", f"[1]+  Stopped                 {job}", "$ fg", job, "after-resume",
            f"{frame.nonce}:e:0"]
    found = extract(frame, rows)
    assert (found.lines, found.hidden, found.status) == (["before", "after-resume"], 6, 0)
    fish = new_typed_frame("fish")
    argv = "sh -c (printf '(trap \\047printf%s%s:e:%s\\134n\\047 …"
    stop = "fish: Job 1, 'sh -c (printf '(trap \\047printf…' has stopped"
    rows = [fish.start_marker, f"4242 pts/1 S+ 0:00 {argv}", f"progress^Z{stop}",
            "> fg", "Send job 1 'sh -c (printf '(trap \\047printf…' to foreground", "done",
            f"{fish.nonce}:e:0"]
    found = extract(fish, rows)
    assert found.lines == [f"4242 pts/1 S+ 0:00 {argv}", "progress", "done"], found

"""waiting_for_input on a far server's host (issue 23; docs/run-outcomes.md, "A server on
another host"): what one far shell gathered (host/far_script.py), decided by the rules of
a local run (host/far_input.py), and the look itself through a real tmux server's
``if-shell`` (here a local one: its host's /proc is this machine's, so the same script
sees a real run). The looks over a real ssh connection are tests/ssh/test_ssh_input.py's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

import anyio
import pytest
from muxport import Refused
from muxport.testing import TmuxResult, eventually, tool_context
from muxport_execute.frames import typed
from muxport_execute.frames.sight import FarSight
from muxport_execute.host.far_input import FarLooks, FarView, decide, far_reader, far_view
from muxport_execute.host.far_input import until_far_reading as until_reading
from muxport_execute.host.far_script import commands, parse
from muxport_execute.run import driver
from muxport_execute.run.answer import settle
from muxport_execute.run.table import RunTable
from test_execute_remote import FarTmux, started, tripwire

__all__ = ["tripwire"]  # the fixture: no look at this machine's /proc or terminals

pytestmark = pytest.mark.timeout(30)

VIEW = FarView(100, 100, "/dev/pts/1", FarLooks())
HEAD = "V 1\nT 34817 200\nA x86_64\nP 200 S 34817\nC 200 prog\n"
TTY = "L 200 0 -> /dev/pts/1\n"
ECHO = "E 4400:5:bf:8a3b:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0\n"
HIDDEN = "E 4400:5:bf:8a33:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0\n"


def _call(number: int, *args: int) -> str:
    """A sleeper's /proc/PID/syscall line: its six arguments, then sp and pc."""
    six = [*args, *[0] * (6 - len(args))]
    return f"S 200 {number} " + " ".join(hex(a) for a in six) + " 0x7ffd 0x7ff0\n"


def _sight(*lines: str) -> str:
    return HEAD + "".join(lines)


def _decided(text: str, view: FarView = VIEW) -> tuple[int, bool, str | None] | None:
    sight = parse(text)
    assert sight is not None
    found = decide(sight, view)
    return None if found is None else (found.pid, found.echo_off, found.name)


def test_a_read_on_the_pane_s_terminal_is_waiting_with_echo_or_without():
    read = _call(0, 0)
    assert _decided(_sight(read, TTY, ECHO)) == (200, False, "prog")
    assert _decided(_sight(read, TTY, HIDDEN)) == (200, True, "prog")  # a password prompt
    assert _decided(_sight(read, TTY)) == (200, False, "prog")  # stty failed: not secret
    # /dev/tty is the controlling terminal: the pane's when its tty_nr is the pane's
    via_tty = "L 200 3 -> /dev/tty\n"
    assert _decided(_sight(_call(0, 3), via_tty, HIDDEN)) == (200, True, "prog")
    other = _sight(_call(0, 3), via_tty).replace("P 200 S 34817", "P 200 S 1")
    assert _decided(other) is None
    # another terminal, a file, the shell's own group, another architecture: not waiting
    assert _decided(_sight(read, TTY.replace("pts/1", "pts/2"))) is None
    assert _decided(_sight(read, TTY), FarView(100, 200, "/dev/pts/1", FarLooks())) is None
    assert _decided(_sight(read, TTY).replace("x86_64", "riscv64")) is None


def test_arm64_numbers_are_its_own():
    arm = _sight(_call(63, 0), TTY).replace("x86_64", "aarch64")
    assert _decided(arm) == (200, False, "prog")
    assert _decided(arm.replace("S 200 63", "S 200 0")) is None  # io_setup there


def test_poll_and_select_watch_the_terminal_alone_or_beside_a_wake_up():
    entries = "M 200 00 00 00 00 01 00 00 00 05 00 00 00 01 00 00 00\n"
    poll = _call(7, 0x7FFD00, 2)

    def five(target: str) -> str:
        return f"L 200 5 -> {target}\n"

    assert _decided(_sight(poll, entries, TTY, five("anon_inode:[eventfd]"))) is not None
    fifo = "F 200 5\n"
    assert _decided(_sight(poll, entries, TTY, five("file"), fifo))
    assert _decided(_sight(poll, entries, TTY, five("pipe:[77]"), fifo)) is None
    assert _decided(_sight(poll, entries, TTY, five("socket:[9]"))) is None  # a download
    assert _decided(_sight(poll, TTY, five("anon_inode:[eventfd]"))) is None  # no memory
    select = _call(270, 6, 0x7FFD00)  # descriptors 0 to 5
    assert _decided(_sight(select, "M 200 01 00 00 00 00 00 00 00\n", TTY)) is not None
    assert _decided(_sight(select, "M 200 21 00 00 00 00 00 00 00\n", TTY)) is None  # and 5


def test_a_process_at_work_or_asleep_elsewhere_is_not_waiting():
    read = _call(0, 0)
    busy = _sight(read, TTY, "P 201 R 34817\n")
    assert _decided(busy) is None
    assert _decided(_sight(_call(35), TTY)) is None  # nanosleep
    assert _decided(_sight("S 200 running\n", TTY)) is None


@pytest.mark.parametrize("text", ["", "V 1\n", "V 1\nT x y\n", "garbage\nT 1 2\n",
                                  "V 1\nT 1 2\nP 3\nS 9 0\nM 3 zz\nL 3 \n"])
def test_what_is_not_a_sight_is_none_or_shown_as_far_as_it_goes(text):
    sight = parse(text)
    assert sight is None or decide(sight, VIEW) is None


def test_past_the_cap_or_the_budget_nothing_waits():
    read = _sight(_call(0, 0), TTY)
    assert _decided(read) is not None
    assert _decided(read + "X\n") is None  # a 17th process may be running
    assert _decided("V 1\nT 34817 200\nX\n") is None  # more text than a buffer takes


def test_names_and_targets_keep_their_backslashes():
    name = "C 200 a\\cb\\n%s\n"  # printf '%s\\n': never an echo that reads \\c
    found = _decided(_sight(_call(0, 0), TTY).replace("C 200 prog\n", name))
    assert found == (200, False, "a\\cb\\n%s")


def _plain(script: str) -> str:
    assert all(len(run) % 2 == 0 for run in re.findall("#+", script))  # every # doubled
    return script.replace("##", "#")


def test_the_script_reaches_sh_exactly_through_format_expansion():
    (look, *rest), = [commands(7, 9, "/dev/pts/3 x", "/opt/t mux/tmux", "/tmp/s#1",
                               ["old-1"])]
    assert look[0] == "if-shell" and look[2] == "" and "#" in look[1]
    plain = _plain(look[1])
    assert "${s##*\\)}" in plain and "'/opt/t mux/tmux' -S '/tmp/s#1' set-buffer" in plain
    assert plain.startswith("set +e\n") and "p=7 g0=9 t='/dev/pts/3 x'\n" in plain
    assert plain.endswith("exit 1\n") and "echo" not in plain
    assert "'/tmp/s#1' delete-buffer -b old-1 >/dev/null 2>&1\n" in plain
    for shell in ("dash", "bash", "busybox"):
        if shutil.which(shell):
            argv = [shell, "sh", "-n"] if shell == "busybox" else [shell, "-n"]
            done = subprocess.run([*argv, "-c", plain], capture_output=True, text=True,
                                  timeout=10, check=False)
            assert done.returncode == 0, (shell, done.stderr)
    name = rest[-1][2]
    # the empty set-buffer is a no-op that shows the hook check the script's set-buffer
    assert rest == [("set-buffer", "-b", name, "--", ""), ("show-buffer", "-b", name),
                    ("delete-buffer", "-b", name)]


async def test_a_look_through_run_shell_sees_a_real_reader(tmux_server, shell_pane, mcp_client):
    pane = shell_pane("bash")
    async with mcp_client(toolsets=["execute"]) as (_, app):
        ctx = tool_context(app)
        tmux = ctx.tmux
        pid, tty = tmux_server.cmd("display", "-p", "-t", pane.pane_id,
                                   "#{pane_pid} #{pane_tty}").split()
        looks = FarLooks()
        view = await far_view(tmux, looks, pid, tty)
        assert view is not None and view.shell_group == int(pid)
        assert await far_reader(ctx, view) is None  # the shell has the terminal
        pane.type("sh -c 'read -r x'")
        with anyio.fail_after(10):
            found = await until_reading(ctx, view)
        assert (found.echo_off, found.name) == (False, "sh")
        # a look cut short by the run's end still shows and deletes its buffer, and
        # leaves the server up (3.5a to 3.7c crash on a run-shell that prints late: the
        # look's if-shell never prints)
        for delay in (0.0, 0.01, 0.03):
            with anyio.move_on_after(delay):
                await far_reader(ctx, view)
        pane.type("done")
        for failing in ("exit 2", "kill -9 $$", "echo out; echo err >&2; exit 1"):
            done = await tmux.run(("if-shell", failing, ""), check=False)
            assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), failing
        await eventually(lambda: tmux_server.cmd("list-buffers", "-F", "#{buffer_name}"),
                         lambda out: out.strip() == "", what="no buffer left")
        assert tmux_server.cmd("display", "-p", "-t", pane.pane_id,
                               "#{pane_in_mode}").strip() == "0"
        assert await far_view(tmux, looks, pid, "not-a-tty") is None
        assert await far_view(tmux, looks, "999999999", tty) is None  # no such process


class LookingTmux(FarTmux):
    """A far server whose host answers every look: a run's python3 reads /dev/tty, the
    pane's terminal, with echo off (``getpass``)."""

    script = ""

    def _answer(self, command: Sequence[str]) -> str:
        if command[0] == "if-shell":
            self.script = command[1]
            return ""
        if command[0] == "show-buffer":
            if " g0= " in self.script:  # before the line is typed: the shell's group
                return "V 1\nT 34817 4242\n"
            return ("V 1\nT 34817 4343\nA x86_64\nP 4343 S 34817\nC 4343 python3\n"
                    + _call(0, 3).replace("200", "4343")
                    + "L 4343 3 -> /dev/tty\n"
                    + HIDDEN)
        return super()._answer(command)


async def test_a_far_run_reading_with_echo_off_is_seen_from_the_far_host_alone(
    tripwire, monkeypatch
):
    far = LookingTmux("bash")
    ctx, _ = started(far, monkeypatch)
    run = await driver.start(ctx, RunTable(), "%1", "python3 -c 'import getpass'", True, "auto")
    assert isinstance(run.view, FarSight) and run.view.far.shell_group == 4242
    async with anyio.create_task_group() as group:
        monkeypatch.setattr(ctx, "spawn", group.start_soon)  # the looks run in the background
        answer = await settle(ctx, run, 20, None)
    assert (answer.outcome, answer.echo_off) == ("waiting_for_input", True)
    assert answer.note is not None and "echo off" in answer.note
    looks = [c for call in far.calls for c in call if c[0] == "if-shell"]
    assert len(looks) >= 3  # the shell's group, then two looks BOUND apart


class StuckTmux(LookingTmux):
    """A far host whose look at the run never comes back (a stat on a hung mount): the
    transport's deadline cuts it."""

    async def _invoke(self, commands: Sequence[Sequence[str]], *args: Any,
                      **kwargs: Any) -> TmuxResult:
        if commands[0][0] == "if-shell" and " g0= " not in commands[0][1]:
            self.calls.append(tuple(tuple(c) for c in commands))
            raise TimeoutError("tmux_unresponsive")
        return await super()._invoke(commands, *args, **kwargs)


async def test_a_look_cut_short_ends_the_run_s_looks_and_its_buffer_goes_next(
    tripwire, monkeypatch
):
    far = StuckTmux("bash")
    ctx, _ = started(far, monkeypatch)
    table = RunTable()
    run = await driver.start(ctx, table, "%1", "cat", True, "auto")
    assert isinstance(run.view, FarSight) and run.view.far.server is table.far_looks
    async with anyio.create_task_group() as group:
        monkeypatch.setattr(ctx, "spawn", group.start_soon)
        answer = await settle(ctx, run, 1.5, None)
        again = await settle(ctx, run, 0.6, None)  # wait_for_run: no look again
    assert (answer.outcome, again.outcome) == ("timed_out", "timed_out")
    looks = [c for call in far.calls for c in call if c[0] == "if-shell"]
    assert len(looks) == 2  # the shell's group, then one look that hung
    cut = [call for call in far.calls if call[0][0] == "if-shell"][-1][-1][-1]
    # another server's looks share nothing with this one's: its look deletes no buffer
    assert await far_view(ctx.tmux, FarLooks(), "4242", "/dev/pts/1") is not None
    assert "delete-buffer -b" not in far.calls[-1][0][1]
    assert await far_view(ctx.tmux, table.far_looks, "4242", "/dev/pts/1") is not None
    assert f"delete-buffer -b {cut} >/dev/null 2>&1" in far.calls[-1][0][1]


async def test_a_refusal_of_the_far_line_check_is_not_wrapped(tripwire, monkeypatch):
    async def refused(*args: Any) -> None:
        await anyio.sleep(0.01)
        raise Refused("the line holds text", data={"reason": "pending_input"})

    monkeypatch.setattr(typed, "check_far_line", refused)
    for command in ("bash", "ssh"):  # the far look beside it, or a carrier: no look
        ctx, _ = started(LookingTmux(command), monkeypatch)
        with pytest.raises(Refused, match="the line holds text"):
            await driver.start(ctx, RunTable(), "%1", "echo hi", True, "typed")

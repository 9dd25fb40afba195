"""A served server on another host (``muxport --ssh``, issue 23; docs/run-outcomes.md, "A
server on another host"): every run is typed, and nothing of this machine's ``/proc``, its
terminals or its files is read for a pid, tty or path the far server reported.

The far server is simulated (``FarTmux``: tmux answers every ``#{q:}`` format from a table
and prints a screen); its pane pid is THIS process's pid and its tty a real path, so a
missing guard would read a real local process rather than fail quietly. ``tripwire``
records (and raises at) any look at ``/proc`` or ``/dev`` meanwhile. Real runs over ssh
are the end-to-end tests' (tests/).
"""

from __future__ import annotations

import builtins
import os
import re
import termios
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from muxport import InvalidArgument, Refused
from muxport.testing import FakeTmux, TmuxResult, tool_context
from muxport_execute.frames import choose as choosing
from muxport_execute.frames.choose import choose, installation
from muxport_execute.frames.typed import TypedStrategy
from muxport_execute.host import owners
from muxport_execute.naming import checked_directory, unchecked_note
from muxport_execute.run import cleanup, driver
from muxport_execute.run.answer import settle
from muxport_execute.run.table import RunTable

pytestmark = pytest.mark.timeout(30)

FAR = "deploy@far.example"
PROMPT = "deploy@far:~$ "
_FORMAT = re.compile(r"#\{q:([^}]+)\}")


class Tripped(AssertionError):
    """A look at this machine's /proc or a terminal (never an OSError: no code's fallback
    may swallow it)."""


class FarHost:
    """The served server's host as a toolset sees it (``Tmux.host``): another one."""

    kind, local, name = "ssh", False, FAR


class FarTmux(FakeTmux):
    """A server on ``FAR``: one pane ``%1`` running ``command`` at a prompt."""

    def __init__(self, command: str) -> None:
        super().__init__()
        self.values = {
            "pane_id": "%1", "window_id": "@1", "session_id": "$1", "pane_active": "0",
            "pane_dead": "0", "pane_input_off": "0", "pane_in_mode": "0",
            "synchronize-panes": "0", "window_zoomed_flag": "0", "pane_mode": "",
            "pane_current_command": command, "pane_pid": str(os.getpid()),
            "pane_tty": "/dev/tty", "alternate_on": "0", "alternate_saved_x": "0",
            "alternate_saved_y": "0", "cursor_x": str(len(PROMPT)), "cursor_y": "1",
            "pane_height": "24", "history_size": "0", "history_limit": "2000",
            "pane_pipe": "0",
        }
        self.screen = ["deploy@far:~$ ls", PROMPT]
        self.host = FarHost()  # type: ignore[assignment]

    def _answer(self, command: Sequence[str]) -> str:
        if command[0] == "capture-pane":
            return "\n".join(self.screen) + "\n"
        if command[0] in ("display-message", "list-panes"):
            def value(found: re.Match[str]) -> str:  # as #{q:} prints it
                return re.sub(r"([\\|&$])", r"\\\1", self.values.get(found[1], ""))
            return _FORMAT.sub(value, command[-1]) + "\n"
        return ""  # list-clients (none attached), send-keys

    async def _invoke(self, commands: Sequence[Sequence[str]], *args: Any,
                      **kwargs: Any) -> TmuxResult:
        self.calls.append(tuple(tuple(c) for c in commands))
        return TmuxResult(0, "".join(self._answer(c) for c in commands), "")

    def typed(self) -> list[str]:
        return [c[-1] for call in self.calls for c in call if c[0] == "send-keys"]


@pytest.fixture
def tripwire(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    looks: list[str] = []

    def wrap(real: Callable[..., Any], name: str) -> Callable[..., Any]:
        def guarded(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, str | bytes | os.PathLike):
                text = os.fsdecode(path)
                if text.startswith(("/proc/", "/dev/")):
                    looks.append(f"{name}({text})")
                    raise Tripped(f"{name}({text}) on a server of another host")
            return real(path, *args, **kwargs)
        return guarded

    for module, name in ((builtins, "open"), (os, "open"), (os, "stat"), (os, "listdir"),
                         (os, "scandir"), (os, "readlink")):
        monkeypatch.setattr(module, name, wrap(getattr(module, name), name))

    def no_termios(*args: Any) -> Any:
        looks.append("tcgetattr")
        raise Tripped("tcgetattr on a server of another host")

    monkeypatch.setattr(termios, "tcgetattr", no_termios)
    yield looks
    assert looks == []


def started(far: FarTmux, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[Any]]:
    ctx = tool_context(far, "run_shell_command")
    spawned: list[Any] = []
    monkeypatch.setattr(ctx, "spawn", spawned.append)  # the follow needs a real server
    return ctx, spawned


@pytest.mark.parametrize(("command", "kind"), [("bash", "posix"), ("zsh", "posix"),
                                               ("-dash", "posix"), ("fish", "fish")])
def test_every_shell_of_a_far_server_gets_the_typed_frame(command, kind, monkeypatch):
    def no_proc(pid: str) -> None:
        raise Tripped("foreground_uid")

    monkeypatch.setattr(choosing, "foreground_uid", no_proc)
    for requested in ("auto", "typed"):
        reach = choose(requested, command, str(os.getpid()), "%1", far_host=FAR)
        assert (reach.frame, reach.kind, reach.local_view) == ("typed", kind, False)
    carried = choose("auto", "ssh", str(os.getpid()), "%1", far_host=FAR)
    assert (carried.frame, carried.kind, carried.local_view, carried.carrier) == (
        "typed", None, False, "ssh")


@pytest.mark.parametrize("command", ["bash", "fish", "ssh", "su"])
def test_the_local_frame_is_refused_on_a_far_server(command):
    with pytest.raises(Refused, match=re.escape(f"runs on {FAR}")) as refused:
        choose("local", command, "1", "%1", far_host=FAR)
    assert refused.value.data["reason"] == "local_frame_unreachable"
    assert refused.value.data["host"] == FAR


@pytest.mark.parametrize("command", ["bash", "fish"])
async def test_a_run_in_a_far_shell_is_typed_from_the_screen_alone(command, tripwire,
                                                                   monkeypatch):
    far = FarTmux(command)
    ctx, spawned = started(far, monkeypatch)
    run = await driver.start(ctx, RunTable(), "%1", "echo hi", True, "auto")
    assert (run.frame_name, run.view, run.state, len(spawned)) == ("typed", None,
                                                                   "dispatched", 1)
    line = far.typed()[-1]
    assert line.startswith(" : /;") and ("sh -c (printf '" if command == "fish"
                                          else "eval \"$(printf '") in line
    answer = await settle(ctx, run, 0.05, None)  # nothing ran: a timeout, told why
    assert answer.outcome == "timed_out" and answer.frame == "typed"
    assert answer.note is not None and f"on {FAR}, the served server's host" in answer.note
    assert answer.echo_off is None and answer.prompt is None


async def test_a_carrier_in_a_far_pane_is_probed_without_its_terminal(tripwire, monkeypatch):
    far = FarTmux("ssh")

    async def answered(self: TypedStrategy, ctx: Any, frame: Any) -> tuple[Any, list[str]]:
        return frame, []  # a POSIX shell answered (its look needs a real server)

    monkeypatch.setattr(TypedStrategy, "_probe", answered)
    ctx, _ = started(far, monkeypatch)
    run = await driver.start(ctx, RunTable(), "%1", "uname -a", True, "typed")
    assert (run.frame_name, run.view) == ("typed", None)
    assert isinstance(run.frame, TypedStrategy) and run.frame.tty == ""  # never opened here


async def test_a_far_program_is_refused_by_tmux_s_name_alone(tripwire, monkeypatch):
    far = FarTmux("sleep")  # a young shell's rc file, or not: /proc cannot say there
    ctx, _ = started(far, monkeypatch)
    with pytest.raises(Refused, match="running sleep, not a POSIX shell") as refused:
        await driver.start(ctx, RunTable(), "%1", "echo hi", True, "auto")
    assert refused.value.data["reason"] == "not_a_shell"
    assert far.typed() == []


async def test_local_frame_on_a_far_server_types_nothing(tripwire, monkeypatch):
    far = FarTmux("bash")
    ctx, _ = started(far, monkeypatch)
    table = RunTable()
    with pytest.raises(Refused) as refused:
        await driver.start(ctx, table, "%1", "echo hi", True, "local")
    assert refused.value.data["reason"] == "local_frame_unreachable"
    assert far.typed() == [] and table.runs == {}


async def test_startup_cleanup_leaves_a_far_server_and_this_machine_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    me = owners.me()
    assert me is not None
    dead = tmp_path / f"mxr-999999999.{me.start}.{me.scope}-abcd1234"  # no such pid
    dead.mkdir()
    monkeypatch.setattr(cleanup, "base_dir", lambda: str(tmp_path))
    assert cleanup.dead_directories(str(tmp_path)) == [dead]
    far = FarTmux("bash")
    assert not await cleanup.after_crashes(far)
    assert far.calls == [] and dead.is_dir()  # kept for a muxport serving its server


async def test_a_start_directory_is_the_far_host_s(tmp_path):
    far, here = FarTmux("bash"), FakeTmux()
    missing = str(tmp_path / "only-on-the-far-host")
    assert await checked_directory(far, missing) == missing
    note = unchecked_note(far, missing)
    assert note is not None and FAR in note and "not checked" in note
    assert unchecked_note(far, None) is None and unchecked_note(here, str(tmp_path)) is None
    with pytest.raises(InvalidArgument, match="not an existing directory"):
        await checked_directory(here, missing)


def test_the_facts_say_what_a_far_server_gets():
    # computed once at load, before any server is reached: true of both kinds of server
    facts = installation()
    assert "--ssh" in facts["frames"]["local"]["servers"]
    assert "--ssh" in facts["waiting_for_input"]["where"]
    assert "--ssh" in cleanup.survey()["how"]

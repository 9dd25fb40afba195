"""What runs in a pane's foreground, and recoveries that work for it (docs/run-outcomes.md,
"What to do next").

C-c is wrong for a pager (``less`` ignores it; ``q`` leaves), an editor, a REPL (it
clears the line and stays) or a stopped job (it is not in the foreground): the
recovery is chosen from the pane's foreground program, in one table (``way_out``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

PAGERS = frozenset({"less", "more", "most", "man", "pager", "pg", "bat", "delta"})
VI = frozenset({"vi", "vim", "nvim", "view", "vim.basic", "vim.tiny", "gvim", "ex"})
EDITORS = {"nano": ("C-x",), "pico": ("C-x",), "emacs": ("C-x", "C-c"), "micro": ("C-q",)}
REPLS = frozenset(
    {"python", "python3", "ipython", "node", "irb", "pry", "psql", "mysql", "sqlite3",
     "ghci", "iex", "erl", "lua", "R", "julia", "bc", "gdb", "redis-cli", "mongosh"}
)
FULL_SCREEN = frozenset({"top", "htop", "btop", "watch", "tig", "mc", "ranger"})
OTHER_SHELLS = frozenset({"xonsh", "nu", "elvish", "pwsh", "ion", "murex", "csh", "tcsh"})
POSIX_SHELLS = frozenset(
    {"sh", "ash", "bash", "dash", "ksh", "ksh93", "mksh", "pdksh", "zsh", "yash", "posh", "busybox"}
)


@dataclass(frozen=True)
class WayOut:
    """What ends a foreground program: ``keys`` for send_keys, as one list (key names
    and text; tmux sends a word that is no key name as text)."""

    kind: str  # what the program is, for the note
    keys: tuple[str, ...]
    then: str = ""  # what the program may still ask after the keys


# The one table of ways out (docs/run-outcomes.md): C-c is wrong for a pager (less ignores
# it), vi (it stays in command mode) and a REPL (it clears the line and stays).
# Escape first: vi may be in insert mode, where :q! would be typed as text.
VI_WAY = WayOut("an editor", ("Escape", ":q!", "Enter"), "(it discards unsaved changes)")
PAGER_WAY = WayOut("a pager", ("q",))
REPL_WAY = WayOut("an interactive program (a REPL)", ("C-d",), "(C-c only clears its line)")
INTERRUPT = WayOut("a program", ("C-c",))
# A summary for refusals that cannot name the program (a far side over ssh)
WAYS_SUMMARY = "q for a pager, Escape :q! Enter for vi, C-d for a REPL, C-c otherwise"


def way_out(command: str) -> WayOut | None:
    """What ends ``command`` (a program's name); None for a shell that is not POSIX, whose
    way out (C-d, exit) would end the user's shell, perhaps their login shell. A POSIX
    shell in a run's foreground is the frame's subshell (a ``read``, a loop): C-c."""
    name = program_name(command)
    if name in OTHER_SHELLS:
        return None
    if name in PAGERS:
        return PAGER_WAY
    if name in VI:
        return VI_WAY
    if name in EDITORS:
        then = "(then n to discard changes)" if name in ("nano", "pico") else ""
        return WayOut("an editor", EDITORS[name], then)
    if name in REPLS or name.startswith("python"):
        return REPL_WAY
    if name in FULL_SCREEN:
        return WayOut("a full-screen program", ("q",))
    return INTERRUPT


def is_posix_shell(command: str) -> bool:
    """Whether a pane's foreground program (``pane_current_command``) is a POSIX shell."""
    name = command.strip().lstrip("-").rsplit("/", 1)[-1]
    return name in POSIX_SHELLS


def is_interactive(command: str) -> bool:
    """A program a person runs and an rc file never leaves in the foreground: a pager, an
    editor, a REPL, a full-screen program."""
    way = way_out(command)
    return way is not None and way is not INTERRUPT


def program_name(command: str) -> str:
    name = command.strip().lstrip("-").rsplit("/", 1)[-1]
    # python3.11 -> python3
    return name.rstrip("0123456789.") if name.startswith("python3.") else name


def keys_text(keys: tuple[str, ...]) -> str:
    """``keys`` as the send_keys list to send, exactly."""
    return json.dumps(list(keys))


def stop_recovery(command: str, pane_id: str) -> str:
    """How to end what runs in ``pane_id`` in the foreground (``command``: its name, from
    /proc where it can be read: tmux names a script by its interpreter, xonsh python3)."""
    name = program_name(command)
    way = way_out(name)
    if way is None:  # C-d would end the pane's own shell, maybe a login shell
        return (
            f"{name} is a shell that is not POSIX: run_shell_command cannot frame commands "
            f"there; type into it with send_keys to {pane_id} (never C-d: it exits the shell)"
        )
    verb = "interrupts it" if way is INTERRUPT else "ends it"
    then = f" {way.then}" if way.then else ""
    what = "" if way is INTERRUPT else f"{name} is {way.kind}: "
    return f"{what}send_keys {keys_text(way.keys)} to {pane_id} {verb}{then}"


REWRITTEN = (
    "the command moved the cursor or rewrote the screen (cursor movement, a scroll "
    "region, a clear), so some output may be missing or out of order; redirect to a "
    "file (cmd > out.txt) to get it all"
)
OUTGREW = (
    "the start of the output is no longer in the pane (it outgrew the pane's history, or "
    "the pane was cleared): these are the newest lines it still holds; redirect to a file "
    "(cmd > out.txt) to keep everything"
)


def missing_start(history_full: bool) -> str:
    """The note of a run whose start marker is gone. Only a full history can have dropped
    it; otherwise it was overwritten on the screen: a command moved the cursor up and the
    shell cleared below it at its prompt (zsh does; bash leaves the rows, seen as rows
    below the cursor)."""
    return OUTGREW if history_full else REWRITTEN


def stopped_recovery(pane_id: str, run_id: str) -> str:
    return (
        f"the run was stopped (C-z, SIGTSTP) and the shell has the terminal again; "
        f"send_keys ['fg', 'Enter'] to {pane_id} resumes it (then wait_for_run with run_id "
        f"{run_id}; C-c after fg ends it); C-c now would not reach it"
    )


def background_note(pane_id: str, run_id: str) -> str:
    return (
        f"the run goes on in the background (bg) and the shell in {pane_id} has the "
        f"terminal again, so the pane takes other commands; wait_for_run with run_id "
        f"{run_id} collects it when it ends; send_keys ['fg', 'Enter'] to {pane_id} brings "
        "it back to the foreground (then C-c ends it)"
    )


def clear_line(pane_id: str) -> str:
    return (
        f"send_keys C-c to {pane_id} discards the unfinished line (it also ends a "
        "continuation prompt, a pending read and vi command mode), then run the command again"
    )


def typed_note(pane_id: str) -> str:
    """The note of a run into whose pane keys were typed that it did not read."""
    return (
        f"keys were typed into {pane_id} during the run (a person, or send_keys) that the "
        "run had not read when last looked at: the terminal echoed them into this output, "
        "and what the run does not read the shell reads as its next command line once the "
        "run ends"
    )


def gone_note(state: str, pane_id: str, run_id: str) -> str:
    """The note of a run whose pane or server went away under it."""
    if state == "server_gone":
        return (
            f"the tmux server stopped while run {run_id} ran; list_sessions shows "
            "whether one is running again"
        )
    return (
        f"pane {pane_id} was killed, died or was respawned while run {run_id} "
        "ran; list_panes shows the panes that exist"
    )


def typed_not_started(pane_id: str, what: str, lines: list[str]) -> str:
    """The note of a typed run that ended before its frame ran (frames/typed.py)."""
    screen = " | ".join(lines) if lines else "(nothing)"
    return (
        f"{what}; the pane's last lines: {screen}. Nothing was run by this call. Look with "
        f"capture_pane {pane_id}: finish what the far side asks for (a password, a host key "
        "question: ask the user to type secrets), leave a program there with send_keys, or "
        "send_keys C-c to discard a half-typed line (vi command mode too), then call "
        "run_shell_command again"
    )

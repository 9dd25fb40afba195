"""What runs in a pane's foreground, and recoveries that work for it (docs/run-outcomes.md,
"What to do next").

C-c is wrong for a pager (``less`` ignores it; ``q`` leaves), an editor, a REPL (it
clears the line and stays) or a stopped job (it is not in the foreground): the
recovery is chosen from the pane's foreground program.
"""

from __future__ import annotations

PAGERS = frozenset({"less", "more", "most", "man", "pager", "pg", "bat", "delta"})
EDITORS = {
    "vi": "Escape then :q! Enter",
    "vim": "Escape then :q! Enter",
    "nvim": "Escape then :q! Enter",
    "view": ":q! Enter",
    "nano": "C-x (then n to discard changes)",
    "pico": "C-x",
    "emacs": "C-x C-c",
    "micro": "C-q",
}
REPLS = frozenset(
    {"python", "python3", "ipython", "node", "irb", "pry", "psql", "mysql", "sqlite3",
     "ghci", "iex", "erl", "lua", "R", "julia", "bc", "gdb", "redis-cli", "mongosh"}
)
FULL_SCREEN = frozenset({"top", "htop", "btop", "watch", "tig", "mc", "ranger"})
OTHER_SHELLS = frozenset({"xonsh", "nu", "elvish", "pwsh", "ion", "murex", "csh", "tcsh"})
POSIX_SHELLS = frozenset(
    {"sh", "ash", "bash", "dash", "ksh", "ksh93", "mksh", "pdksh", "zsh", "yash", "posh", "busybox"}
)


def is_posix_shell(command: str) -> bool:
    """Whether a pane's foreground program (``pane_current_command``) is a POSIX shell."""
    name = command.strip().lstrip("-").rsplit("/", 1)[-1]
    return name in POSIX_SHELLS


def is_interactive(command: str) -> bool:
    """A program a person runs and an rc file never leaves in the foreground: a pager, an
    editor, a REPL, a full-screen program."""
    name = program_name(command)
    return (name in PAGERS or name in EDITORS or name in REPLS or name in FULL_SCREEN
            or name.startswith("python"))


def program_name(command: str) -> str:
    name = command.strip().lstrip("-").rsplit("/", 1)[-1]
    # python3.11 -> python3
    return name.rstrip("0123456789.") if name.startswith("python3.") else name


def stop_recovery(command: str, pane_id: str) -> str:
    """How to end what runs in ``pane_id`` in the foreground (``command`` as tmux names it)."""
    name = program_name(command)
    if name in OTHER_SHELLS:  # C-d would end the pane's own shell, maybe a login shell
        return (
            f"{name} is a shell that is not POSIX: run_shell_command cannot frame commands "
            f"there; type into it with send_keys to {pane_id} (never C-d: it exits the shell)"
        )
    if name in PAGERS:
        return f"{name} is a pager: send_keys q to {pane_id} leaves it"
    if name in EDITORS:
        return f"{name} is an editor: send_keys {EDITORS[name]} to {pane_id} leaves it"
    if name.startswith("python") or name in REPLS:
        return (
            f"{name} is an interactive program: send_keys C-d to {pane_id} (or its own exit "
            "command) leaves it; C-c only clears its line"
        )
    if name in FULL_SCREEN:
        return f"{name} is a full-screen program: send_keys q (or C-c) to {pane_id} ends it"
    return f"send_keys C-c to {pane_id} interrupts it"


def stopped_recovery(pane_id: str, run_id: str) -> str:
    return (
        f"the run was stopped (C-z, SIGTSTP) and the shell has the terminal again; "
        f"send_keys ['fg', 'Enter'] to {pane_id} resumes it (then wait_for_run with run_id "
        f"{run_id}; C-c after fg ends it); C-c now would not reach it"
    )


def clear_line(pane_id: str) -> str:
    return (
        f"send_keys C-c to {pane_id} discards the unfinished line (it also ends a "
        "continuation prompt, a pending read and vi command mode), then run the command again"
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

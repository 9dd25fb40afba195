"""Recoveries that work for what is actually in the pane (docs/run-outcomes.md, "What to do next").

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


def program_name(command: str) -> str:
    name = command.strip().lstrip("-").rsplit("/", 1)[-1]
    # python3.11 -> python3
    return name.rstrip("0123456789.") if name.startswith("python3.") else name


def stop_recovery(command: str, pane_id: str) -> str:
    """How to end what runs in ``pane_id`` in the foreground (``command`` as tmux names it)."""
    name = program_name(command)
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

"""Before a run types its line: the foreground program and the line editor
(docs/run-outcomes.md).

``ready_shell`` waits, briefly and bounded, for a shell that is still starting (its rc
file runs a program, or the pane still shows ``env``); ``check_line`` refuses a line
that is not an empty main prompt, after clearing this server's own text.
"""

from __future__ import annotations

import anyio
from muxport import Refused, Tmux

from muxport_execute.host import procs
from muxport_execute.host.shell_reads import foreground_job
from muxport_execute.notes import clear_line, is_interactive, is_posix_shell, stop_recovery
from muxport_execute.pane import view
from muxport_execute.pane.line_state import PendingInput, clear_own, judge
from muxport_execute.pane.view import Line, read_line

STARTING_AGE = 10.0  # a pane whose process is younger than this may still be starting
STARTING_BOUND = 5.0  # how long a starting shell is waited for
BUSY_BOUND = 5.0  # how long a shell between commands (prompt hooks) is waited for
BLANK_BOUND = 2.0  # how long fish may show no prompt on the cursor row


FORKED = "tmux"  # a new pane's process between tmux's fork and its exec of the shell


def _age(pane_pid: str) -> float | None:
    """Seconds since the pane's process started (None: unknown, a far pane's)."""
    return procs.age(int(pane_pid)) if pane_pid.isdigit() else None


def _starting(program: str, pane_pid: str) -> bool:
    if program in ("env", ""):
        return True
    if program == FORKED:  # only in a pane just made, or one whose age is unknown; in an
        age = _age(pane_pid)  # older one, a tmux client a person runs
        return age is None or age < STARTING_AGE
    if is_interactive(program):  # a person's python3, less or vim: not an rc file's
        return False
    age = _age(pane_pid)  # 0.0 is young: started within the clock's tick
    if age is None or age >= STARTING_AGE:
        return False
    first = procs.command_name(int(pane_pid))
    return is_posix_shell(first) or first == "env"


async def ready_shell(tmux: Tmux, pane_id: str, program: str, pane_pid: str) -> str:
    """The pane's foreground shell, once it is one (refused otherwise, with the reason)."""
    if is_posix_shell(program):
        return program
    if not tmux.host.local:  # a far host's pid (--ssh) means nothing in this
        pane_pid = ""  # machine's /proc: no young-shell wait, and tmux's name is shown
    if _starting(program, pane_pid):
        with anyio.move_on_after(STARTING_BOUND if program != FORKED else BLANK_BOUND):
            delay = 0.01
            while True:  # a poll: tmux fires no event when a foreground program changes
                await anyio.sleep(delay)
                delay = min(0.1, delay * 2)
                program = (await view.read(tmux, pane_id, ("command",)))["command"]
                if is_posix_shell(program):
                    return program
    if _starting(program, pane_pid) and program != FORKED:
        raise Refused(
            f"the shell in pane {pane_id} is still starting (it runs {program or 'nothing'} "
            f"after {STARTING_BOUND:g} s: its rc file may be slow); call run_shell_command "
            "again in a moment",
            retryable=True,
            data={"reason": "starting", "pane_id": pane_id, "command": program},
        )
    # tmux names a script by its interpreter (xonsh as python3, whose C-d would end
    # xonsh): /proc names the program itself
    named = (procs.foreground_program(pane_pid) if pane_pid.isdigit() else None) or program
    raise Refused(
        f"pane {pane_id} is running {named or 'no program'}, not a POSIX shell (sh, bash, "
        "zsh, dash, ksh...), so run_shell_command cannot frame a command there; "
        f"{stop_recovery(named, pane_id)}, or use send_keys to type into it",
        data={"reason": "not_a_shell", "pane_id": pane_id, "command": program},
    )


async def _between_commands(tmux: Tmux, pane_id: str, shell: str, line: Line) -> Line:
    """The line once the shell is no longer between commands (a poll: no tmux event marks
    a terminal's mode), or as it is after ``BUSY_BOUND``."""
    delay, started = 0.002, anyio.current_time()
    with anyio.move_on_after(BUSY_BOUND):
        while (verdict := judge(line, shell)) in ("busy", "blank", "job"):
            if verdict == "blank" and anyio.current_time() - started >= BLANK_BOUND:
                break
            await anyio.sleep(delay)
            delay = min(0.05, delay * 2)
            line = await read_line(tmux, pane_id)
    return line


def _refuse(pane_id: str, reason: str, why: str, line: Line) -> Refused:
    found = line.left.strip()
    return Refused(
        f"not typing into pane {pane_id}: {why} (the line shows {found!r}); "
        f"{clear_line(pane_id)}",
        retryable=False,
        data={"reason": reason, "pane_id": pane_id, "line": found},
    )


async def check_line(
    tmux: Tmux, pane_id: str, shell: str, line: Line, pending: PendingInput
) -> Line:
    """Refuse unless the shell shows an empty main prompt; clear this server's own text.
    A shell between commands is waited for first (bounded, ``BUSY_BOUND``)."""
    line = await _between_commands(tmux, pane_id, shell, line)
    verdict = judge(line, shell)
    own = pending.take(pane_id)
    if verdict == "busy":
        raise Refused(
            f"the shell in pane {pane_id} is still busy between commands after "
            f"{BUSY_BOUND:g} s (its prompt hooks or its rc file work in the shell itself); "
            "call run_shell_command again in a moment",
            retryable=True,
            data={"reason": "starting", "pane_id": pane_id, "command": shell},
        )
    if verdict == "reading" and shell == "posh":
        raise Refused(
            f"not typing into pane {pane_id}: posh reads its prompt's line exactly as a "
            "`read` does (one byte at a time, the terminal in canonical mode), so muxport "
            "cannot tell its prompt from a pending read; type into it with send_keys "
            "(the command, then Enter) and wait_for_text, or start sh, dash or bash there",
            retryable=False,
            data={"reason": "unsupported_shell", "pane_id": pane_id, "command": shell},
        )
    if verdict == "reading":
        raise _refuse(pane_id, "not_at_prompt", "the shell is reading input (a pending read)", line)
    if verdict == "job":
        program = foreground_job(line.pid, line.tty) or "a program"
        raise Refused(
            f"not typing into pane {pane_id}: a command still runs there in the foreground "
            f"({program}, in a job of the shell: perhaps a run of a muxport that was stopped); "
            f"wait for it to end, or {stop_recovery(program, pane_id)}, then run again",
            retryable=True,
            data={"reason": "not_at_prompt", "pane_id": pane_id, "command": program},
        )
    if verdict == "blank":
        raise _refuse(
            pane_id, "not_at_prompt",
            "fish shows no prompt on the cursor row: its command line goes on there (an "
            "open quote or block)", line,
        )
    if verdict == "continuation":
        raise _refuse(
            pane_id, "not_at_prompt",
            "the shell shows a continuation prompt (an open quote, heredoc or unfinished "
            "command)", line,
        )
    # This server's own send_keys/paste_text left text there, or an Escape (vi command
    # mode, which the screen does not show): clear it. Text some program took (q to a
    # pager) left an empty line: nothing to clear.
    if own is not None and (verdict == "text" or own.endswith(("Escape", "C-["))):
        line = await clear_own(tmux, pane_id, shell, line)
        verdict = judge(line, shell)
    if verdict == "text":
        raise _refuse(pane_id, "line_not_empty", "there is text on the command line", line)
    return line

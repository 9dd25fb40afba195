"""The line editor's state before a run types its line (docs/run-outcomes.md, "Before typing").

A run types one short line and Enter. That is only safe at an empty main prompt: text
already on the line would be joined to it, a continuation prompt (open quote, heredoc,
trailing ``\\``, ``&&``) would complete someone's unfinished command, a pending ``read``
would swallow it. What is checked, from the pane's cursor row and its terminal:

- ``reading``: bash, zsh, yash, mksh or busybox sh in the foreground with the terminal in
  canonical mode, blocked
  waiting for the terminal. Their line editors switch it to raw mode while they read a
  command, so canonical mode means the shell reads some other way (``read``,
  ``select``). A shell without a line editor (dash) blocked reading the terminal one
  byte at a time is in ``read`` (``shell_reads.pending_read``). posh reads its prompt's
  line that way too, from a buffer no other process can tell from its ``read``'s, so
  posh is refused with its own reason (``unsupported_shell``, ``pane/ready.py``).
- ``busy``: a shell with a line editor, the terminal canonical, but running or blocked in
  something else: between commands (prompt hooks, an rc file working in the shell
  itself), not reading; its prompt is waited for (``pane/ready.py``).
- ``blank`` (fish): no prompt on the cursor row. fish shows no continuation prompt: an
  open quote or block continues the command line on the next row, indented; right after a
  run its prompt may not be drawn yet, so a blank row is waited for briefly.
  ``read>`` on the cursor row is fish's ``read``: ``reading``.
- ``job``: a job has the terminal although tmux names the shell (a subshell: the frame of
  a run whose muxport was killed), running a command; waited for like ``busy`` (a prompt
  hook's child ends at once), then refused naming the job's newest program.
- ``continuation``: the text left of the cursor is a continuation prompt: zsh's
  ``quote>``, ``dquote>``, ``heredoc>``... or bash's ``>`` after a row that ends
  unfinished.
- ``text``: the text left of the cursor does not end like a prompt (a prompt ends with
  a symbol such as ``$ # % > ❯`` and usually a space; typed text ends with a word).
- ``empty`` otherwise.

Text this server typed itself (``send_keys`` or ``paste_text`` without Enter, or a lone
Escape into vi command mode, which the screen cannot show) is tracked per pane
(``PendingInput``) and cleared with C-c before the run; anything else is refused with the
text found and the recovery, never cleared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

import anyio
from muxport import Tmux

from muxport_execute.host import procs
from muxport_execute.host.shell_reads import between_commands, foreground_job, pending_read
from muxport_execute.notes import is_posix_shell
from muxport_execute.pane.view import Line, read_line

Verdict = Literal["empty", "text", "continuation", "reading", "busy", "blank", "job"]
CLEAR_BOUND = 2.5  # seconds for the shell to show a fresh prompt after C-c
RESEND = 0.6
# Shells whose line editor keeps the terminal raw at their prompt (measured: yash, mksh and
# busybox sh too; dash and posh have none, ksh93 only with set -o emacs/vi)
EDITOR_SHELLS = frozenset({"bash", "zsh", "yash", "mksh", "busybox", "ash"})

ZSH_CONTINUATIONS = frozenset(
    "quote dquote bquote heredoc cmdsubst for while until repeat if then else elif case "
    "pipe cmdand cmdor subsh cursh function braceparam math select array errpipe".split()
)
_ZSH_PS2 = re.compile(r"^([a-z]+(?: [a-z]+)*)> ?$")
_UNFINISHED = re.compile(r"(\\|\||&&|\{|\(|<<-?\s*['\"]?\w+['\"]?|\b(?:do|then|else|in))\s*$")
_TYPED_END = set("'\"/\\-_.,*=|&;+~")  # characters that end typed text, not a prompt
ENDS_WITHOUT_SPACE = set("$#%>❯»")
# Keys after which this server's input is no longer on the line (sent, discarded, or
# signals to a program that runs: C-z, C-\\, C-d).
LINE_DONE = frozenset({"Enter", "C-m", "C-j", "KPEnter", "C-c", "C-z", "C-\\", "C-d"})


def prompt_like(left: str) -> bool:
    """Whether the text left of the cursor ends like a prompt rather than typed text."""
    stripped = left.rstrip(" ")
    if not stripped:
        return True
    last = stripped[-1]
    if stripped == left:  # no space before the cursor: only a bare prompt symbol
        return last in ENDS_WITHOUT_SPACE
    return not (last.isalnum() and last.isascii()) and last not in _TYPED_END


def _unfinished(row: str) -> bool:
    """Whether a row above a bare ``>`` prompt leaves a command open (bash's PS2)."""
    if row.startswith("> ") or _UNFINISHED.search(row):
        return True
    return row.count("'") % 2 == 1 or row.replace('\\"', "").count('"') % 2 == 1


def judge(line: Line, shell: str) -> Verdict:
    if line.pid and (shell == "fish" or is_posix_shell(shell)) and foreground_job(
        line.pid, line.tty
    ):
        return "job"  # a job named like the shell has the terminal: not the shell's prompt
    if shell in EDITOR_SHELLS and procs.canonical(line.tty):
        group = procs.foreground_group(line.pid) if line.pid else None
        between = between_commands(group, line.tty) if group is not None else None
        return "busy" if between else "reading"  # unknown: reading, the safe side
    if line.pid and pending_read(procs.foreground_group(line.pid), line.tty):
        return "reading"  # dash and other shells without a line editor
    stripped = line.left.strip()
    if shell == "fish":  # fish's line editor keeps the terminal raw in a read too
        if stripped == "read>":
            return "reading"
        if not stripped:  # no prompt on the cursor row: a command line continued there
            return "blank"
    ps2 = _ZSH_PS2.match(stripped)
    if ps2 and all(word in ZSH_CONTINUATIONS for word in ps2.group(1).split()):
        return "continuation"
    if stripped == ">" and _unfinished(line.above):
        return "continuation"
    return "empty" if prompt_like(line.left) else "text"


@dataclass
class PendingInput:
    """Panes where this server's own input is on the line (typed without Enter)."""

    panes: dict[str, str] = field(default_factory=dict)

    def typed(self, pane_id: str, keys: list[str], literal: bool, enter: bool) -> None:
        last = keys[-1] if keys else ""
        if enter or (not literal and last in LINE_DONE):
            self.panes.pop(pane_id, None)
        else:
            self.panes[pane_id] = " ".join(keys)[-200:]

    def pasted(self, pane_id: str, text: str, enter: bool) -> None:
        if enter:
            self.panes.pop(pane_id, None)
        else:
            self.panes[pane_id] = text[-200:]

    def take(self, pane_id: str) -> str | None:
        return self.panes.pop(pane_id, None)


async def clear_own(tmux: Tmux, pane_id: str, shell: str, before: Line) -> Line:
    """C-c to a shell whose line holds this server's own text; the line once a fresh
    prompt shows (bounded by CLEAR_BOUND; a poll: no tmux event marks a prompt).

    C-c is sent again every RESEND seconds: a line editor that is still waiting to
    tell a lone Escape from an escape sequence (bash's keyseq-timeout, zsh's
    KEYTIMEOUT) swallows the first one.
    """
    line = before
    with anyio.move_on_after(CLEAR_BOUND):
        while True:
            await tmux.run(("send-keys", "-t", pane_id, "C-c"))
            delay, waited = 0.005, 0.0
            while waited < RESEND:
                await anyio.sleep(delay)
                waited += delay
                delay = min(0.05, delay * 2)
                line = await read_line(tmux, pane_id)
                fresh = (line.left, line.above) != (before.left, before.above)
                if fresh and judge(line, shell) == "empty":
                    return line
    return line

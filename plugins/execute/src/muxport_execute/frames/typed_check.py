"""Before a typed frame types anything: is the far side at a shell's empty prompt?
(docs/run-outcomes.md, "Typed frames").

The screen is the same evidence over ssh as in a local pane, so the local checks apply
(``dispatch.check_line``: text on the line, a continuation prompt, this server's own
text cleared with C-c). What differs:

- A prompt must be on the cursor row. A shell always draws one; an empty cursor row is
  a program reading without a prompt (``cat``), or a far shell that has not drawn its
  prompt yet (right after the previous run's end marker), so it is waited for briefly
  (``PROMPT_BOUND``), on the pane's output events.
- The far program is unknown (tmux sees only ``ssh``), so prompts of programs that are
  not shells are recognised by their text: REPLs (``>>>``, ``In [1]:``, ``mysql>``, a
  bare ``>``, which is also a far shell's continuation prompt) and questions (a
  password, a passphrase, ``[y/n]``, ``(yes/no)?``). They are refused, never typed into.
  Where tmux names a shell in the foreground (su's far shell, a far server's own shell),
  a REPL started there would be named instead: only a POSIX shell's PS2 (``>``) is still
  refused by its text, and fish's prompts pass however they end (``far_program``).
- A pending ``read`` in the far shell shows no prompt of its own when it has none; over
  ssh the local terminal's mode says nothing about the far one (ssh keeps it raw), so
  only su-like carriers (same terminal) get the ``reading`` check.
"""

from __future__ import annotations

import re

import anyio
from muxport import Refused, ToolContext

from muxport_execute.notes import WAYS_SUMMARY, clear_line, is_posix_shell, program_name
from muxport_execute.pane.line_state import PendingInput
from muxport_execute.pane.ready import check_line
from muxport_execute.pane.view import Line, read_line

PROMPT_BOUND = 2.0
# Whole cursor-row texts of REPLs and debuggers. Bare ones: python (and its
# continuation), node, or a far shell's PS2 (``>``). Named ones: ipython, irb, pry, psql,
# gdb/pdb, and ``name>`` (mysql, sqlite, ghci, julia, scala...). A main prompt like
# ``mybox>`` behind a carrier is refused too: the refusal names the line, and a symbol
# such as ``$`` after it makes it a prompt.
_BARE_REPL = re.compile(r"^(?:>>>|\.\.\.|>>?)$")
_NAMED_REPL = re.compile(
    r"^(?:In \[\d+\]:|irb\([^)]*\):\d+:\d+[>*]|\[\d+\] pry\([^)]*\)>"
    r"|[\w-]+[=-][#>]|\((?:gdb|Pdb|lldb)\)|[A-Za-z][\w.-]*(?:\([^)]*\)|\s\[[^]]*\])?>)$"
)
_SECRET = re.compile(r"(password|passphrase|passcode|\bpin\b|token|one-time|otp|verification"
                     r" code)[^\n]*[:?]$", re.IGNORECASE)
_QUESTION = re.compile(r"(\[[yYnN]/[yYnN]\]|\((yes|y)/(no|n)[^)]*\)|yes/no|continue)\??:?$",
                       re.IGNORECASE)


def far_program(left: str, shell: str = "") -> str | None:
    """What a cursor row's text asks for when it is not a shell's main prompt. ``shell``:
    the pane's foreground program as tmux names it. Where that is a shell (su's far
    shell, a far server's own shell), a REPL or debugger started there would be named
    instead, so its text is that shell's prompt; only a POSIX shell's PS2 (a bare
    ``>``) still reads as a continuation, and fish shows none (its prompts may end in
    ``>``: fish's default, ``user@host ~>``; its "informative" prompt's row ``>``)."""
    text = left.strip()
    if not text:
        return "nothing: no prompt on the cursor row (a program reading without one, e.g. cat)"
    if _SECRET.search(text):
        return "a secret (a password or passphrase prompt): ask the user to type it"
    if _QUESTION.search(text):
        return "an answer to a question"
    name = program_name(shell)
    named_shell = name == "fish" or is_posix_shell(name)
    if (name != "fish" and _BARE_REPL.match(text)) or (
        not named_shell and _NAMED_REPL.match(text)
    ):
        return "input to a program that is not a shell (a REPL prompt), or a continuation"
    return None


def _refuse(pane_id: str, what: str, line: Line, retryable: bool) -> Refused:
    found = line.left.strip()
    return Refused(
        f"not typing into pane {pane_id}: the far side is not at a shell prompt, it waits for "
        f"{what} (the line shows {found!r}). Look with capture_pane {pane_id}; answer or "
        f"leave that program with send_keys ({WAYS_SUMMARY}), or "
        f"{clear_line(pane_id)}",
        retryable=retryable,
        data={"reason": "not_at_prompt", "pane_id": pane_id, "line": found},
    )


async def prompt_line(ctx: ToolContext, pane_id: str, session_id: str) -> Line:
    """The cursor row once it shows something (at most ``PROMPT_BOUND`` seconds)."""
    line = await read_line(ctx.tmux, pane_id)
    if line.left.strip():
        return line
    with anyio.move_on_after(PROMPT_BOUND):
        async with ctx.watch(pane_id, session_id) as activity:
            while not line.left.strip():
                await activity.wait(activity.recheck_interval())
                line = await read_line(ctx.tmux, pane_id)
    return line


async def check_far_line(
    ctx: ToolContext, pane_id: str, session_id: str, shell: str, pending: PendingInput
) -> None:
    """Refuse unless the far side shows a shell's empty main prompt; clear this
    server's own text first. ``shell`` is the foreground program (``ssh``, or the far
    shell that su runs on this very terminal)."""
    line = await check_line(
        ctx.tmux, pane_id, shell, await prompt_line(ctx, pane_id, session_id), pending
    )
    what = far_program(line.left, shell)
    if what is not None:
        raise _refuse(pane_id, what, line, retryable=not line.left.strip())

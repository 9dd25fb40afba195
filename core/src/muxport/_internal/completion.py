"""Did every command of an invocation complete, when tmux's exit status says it failed?
(docs/tmux-facts.md, "Hooks that fail").

tmux runs a command's ``after-*`` hook on the asking client, right after the command
(``cmdq_insert_hook`` puts it next in the queue). A hook that fails prints its error and
sets the client's exit status, though the command itself is done: the window made and its
ids printed. A command that fails drops the rest of its invocation; a failing hook drops
only its own commands. So an invocation that may fire an after-hook ends with a marker
command that fires none (``list-commands``: tmux has no ``after-list-commands``): the
marker printed means every command completed, and a failure status came from a hook.
The call then answers what was done, with a note naming the hook's error, so that a model
does not do it twice.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from muxport._internal.facts import TmuxResult
from muxport._internal.hookguard import AFTER_HOOKED, command_name

TOKEN = f"--muxport-done-{secrets.token_hex(8)}"  # printable: no tmux version escapes it
# list-commands -F prints the format once per command listed (has-session: one line)
MARKER = ("list-commands", "-F", TOKEN, "has-session")
# Commands that make a forked client start a server (CMD_STARTSERVER in 3.3a to next-3.8). The
# marker is one of them, so an invocation that has none of its own gets tmux -N.
STARTS_SERVER = frozenset({
    "new-session", "new", "start-server", "start", "attach-session", "attach", "a",
    "list-keys", "lsk", "list-commands", "lscm",
})

# The hook errors of the current tool call (None: outside a call)
SEEN: ContextVar[list[str] | None] = ContextVar("muxport_hook_errors", default=None)


def hooked(commands: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """The after-hooks ``commands`` may fire, in order (none: no marker is needed)."""
    names = (command_name(str(command[0])) for command in commands if command)
    return tuple(dict.fromkeys(f"after-{name}" for name in names if name in AFTER_HOOKED))


def starts_server(commands: Sequence[Sequence[str]]) -> bool:
    return any(command and str(command[0]) in STARTS_SERVER for command in commands)


def settle(result: TmuxResult, hooks: Sequence[str]) -> TmuxResult:
    """``result`` of an invocation that ended with ``MARKER``, without the marker's line;
    a failure after which the marker still printed is a success with ``hook_error``."""
    # the marker runs last and no hook follows it: its line ends stdout, or it never ran
    # (a pane that shows the token, captured before a failure, is not it). It may follow
    # output with no last newline (show-buffer writes a buffer as it is)
    stdout, line = result.stdout, TOKEN + "\n"
    if not stdout.endswith(line):
        return result  # a command failed: the marker never ran
    stdout = stdout[: -len(line)]
    if result.returncode == 0:
        return replace(result, stdout=stdout)
    said = result.stderr.strip().splitlines()
    error = said[0] if said else f"exit status {result.returncode}"
    return TmuxResult(0, stdout, result.stderr, hook_error=f"{error} ({' or '.join(hooks)})")


@contextmanager
def collecting() -> Iterator[list[str]]:
    """Collect the hook errors of every invocation made inside the block (one tool call)."""
    seen: list[str] = []
    token = SEEN.set(seen)
    try:
        yield seen
    finally:
        SEEN.reset(token)


def record(result: TmuxResult) -> TmuxResult:
    """Keep ``result``'s hook error for the current call's note."""
    seen = SEEN.get()
    if result.hook_error and seen is not None and result.hook_error not in seen:
        seen.append(result.hook_error)
    return result


def note(seen: Sequence[str]) -> str | None:
    """The note for an answer whose change was done though a hook failed after it."""
    if not seen:
        return None
    return (
        f"done, but a tmux hook set on this server failed right after: {'; '.join(seen)}. "
        "What this call did is done: do not call again for it (that would do it twice); "
        "`tmux show-hooks -g` shows the hooks, which the person who set them may want to fix"
    )

"""What tmux's answers mean, and how a value reaches tmux intact (docs/tmux-facts.md).

The transport runs tmux; this module holds the facts it relies on: the object kinds,
what a failed invocation's stderr says, and the argv rules (``#`` doubled, a trailing
``;`` escaped, no NUL, no control characters in paths).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from muxport._internal.errors import InvalidArgument, NotFound, ServerGone, StartupError, TmuxFailed

# The one table of tmux object kinds: id prefix, and the listing tool that shows which exist.
OBJECT_KINDS = {
    "pane": ("%", "list_panes"), "window": ("@", "list_windows"), "session": ("$", "list_sessions")
}
# tmux's "can't find" kinds -> (the listing tool that shows what exists, its count query)
MISSING = {
    kind: (tool, (f"list-{kind}s", *(() if kind == "session" else ("-a",)), "-F", "x"))
    for kind, (_, tool) in OBJECT_KINDS.items()
}
GONE_MARKERS = (
    "no server running",
    "error connecting to",
    "server exited unexpectedly",
    "lost server",
    "server not found",
)


@dataclass(frozen=True)
class TmuxResult:
    """What one tmux invocation printed."""

    returncode: int
    stdout: str
    stderr: str
    # the commands completed but an after-hook failed: its error, and the hooks it may be
    # (returncode is then 0; completion.py, docs/tmux-facts.md "Hooks that fail")
    hook_error: str = ""

    @property
    def lines(self) -> list[str]:
        text = self.stdout[:-1] if self.stdout.endswith("\n") else self.stdout
        return text.split("\n") if text else []


def classify(stderr: str) -> Literal["gone", "missing", "failed"]:
    """What a failed invocation's stderr means (docs/tmux-facts.md): the server is gone, a
    target is missing ("no current target": the server has no session left), or else."""
    if any(marker in stderr for marker in GONE_MARKERS):
        return "gone"
    if any(marker in stderr for marker in ("can't find", "no such", "no current target")):
        return "missing"
    return "failed"


def failure(result: TmuxResult, socket_path: str) -> ServerGone | TmuxFailed | NotFound:
    """The tool error for a failed invocation against the server at ``socket_path``."""
    err = result.stderr.strip() or f"tmux exited with status {result.returncode}"
    for kind, (tool, _) in MISSING.items():
        # "can't find pane: %9" from -t; "no such window: @9" from set-option -w -t
        for marker in (f"can't find {kind}", f"no such {kind}"):
            if marker in err:
                target = (err.split(marker, 1)[1].strip(" :\n").splitlines() or ["?"])[0]
                return NotFound(
                    f"no {kind} {target} on this server; "
                    f"call {tool} to see the {kind}s that exist",
                    data={"kind": kind, "target": target},
                )
    if "no current target" in err:  # any -t target, once the server has no session left
        return NotFound(
            "that target does not exist: the tmux server has no sessions now; "
            "call list_sessions, or create_session to make one",
            data={"kind": "session", "target": "none"},
        )
    if classify(err) == "gone":
        return ServerGone(
            f"the tmux server at {socket_path} is not running; create a session "
            "with create_session (or start tmux) and try again",
            delivery="not_sent",
        )
    return TmuxFailed(f"tmux said: {err.splitlines()[0]}", delivery="possibly_sent")


def refuse_control_chars(value: str, what: str) -> str:
    """Socket and binary paths with ASCII control characters or DEL are refused."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise StartupError(f"{what} {value!r} contains a control character; pass a plain path")
    return value


def refuse_nul(argv: list[str]) -> list[str]:
    """An argv item cannot carry NUL (the OS would cut it short): refuse, send nothing."""
    if any("\x00" in item for item in argv):
        raise InvalidArgument(
            "a value contains a NUL character (\\0), which cannot reach tmux; "
            "remove it and call again", delivery="not_sent",
        )
    return argv


NEWEST = (99, 0, "")
# tmux 3.7 stopped notifying control clients that are not fully attached (upstream commits
# e5a2a25 and 31c93c4); before it, one starting while a notification fires crashes the
# server (docs/tmux-facts.md, "Control mode").
CONTROL_NOTIFY_FIXED = (3, 7, "")


# tmux 3.7 refuses send-keys when its target client (without -c: the most recently active
# attached one) is read-only, as a person's `attach -r` or muxport's own feed is; a -c
# naming no client leaves none, which is what older servers' keys reached anyway
# (cmd-send-keys.c; docs/tmux-facts.md, "Panes and input").
SEND_KEYS_CHECKS_CLIENT = (3, 7, "")
NO_CLIENT = "muxport:no-client"


def for_server(name: str, server_version: str) -> tuple[str, ...]:
    """A command's name, and what this server needs right after it to mean what 3.3a does."""
    if name in ("send-keys", "send") and version_key(server_version) >= SEND_KEYS_CHECKS_CLIENT:
        return (name, "-c", NO_CLIENT)
    return (name,)


def version_key(text: str) -> tuple[int, int, str]:
    """``3.3a`` -> (3, 3, "a"), as ``tmux -V`` or ``#{version}`` print it; ``next-3.8`` is
    3.8 and ``master`` the newest; unreadable text sorts below every release."""
    if "master" in text:
        return NEWEST
    found = re.search(r"(\d+)\.(\d+)([a-z]?)", text)
    return (int(found[1]), int(found[2]), found[3]) if found else (0, 0, "")


def literal(value: str) -> str:
    """Double every ``#`` so that tmux format expansion yields ``value`` exactly."""
    return value.replace("#", "##")


def escape_arg(value: str) -> str:
    """Keep an argv item from being read as a command separator.

    tmux treats an argument ending in ``;`` as the end of a command; a backslash
    before that ``;`` keeps it (and is removed by tmux).
    """
    if value.endswith(";"):
        return value[:-1] + "\\;"
    return value

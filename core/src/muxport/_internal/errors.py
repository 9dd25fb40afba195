"""Errors: what a tool raises to answer with a tool error, and what stops startup.

A ``ToolError`` message is shown to the model, so it must name the recovery
("no pane %9 on this server; call list_panes for the 3 that exist").
Anything else raised inside a tool is a bug: the client is told so, the log
keeps the traceback.
"""

from __future__ import annotations

import errno
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from muxport._internal.arguments import fields_at, unknown_hint

Delivery = Literal["not_sent", "possibly_sent", "observed"]


class ToolError(Exception):
    """A failure the model reads; carries ``error_code``, ``retryable`` and ``delivery``."""

    code = "tool_error"
    retryable = False

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        retryable: bool | None = None,
        delivery: Delivery = "not_sent",
        data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if retryable is not None:
            self.retryable = retryable
        self.delivery: Delivery = delivery
        self.data = data or {}

    @staticmethod
    def from_os(exc: OSError, doing: str, delivery: Delivery = "possibly_sent") -> ToolError:
        """The tool error an ``OSError`` raised while ``doing`` stands for (``no_space``,
        ``resource_exhausted``, ``os_error``); ``delivery``: what reached tmux before it
        (``not_sent`` when the caller knows nothing did)."""
        return os_fault(exc, doing, delivery=delivery)

    def meta(self) -> dict[str, Any]:
        return {
            "error_code": self.code, "retryable": self.retryable, "delivery": self.delivery,
            **self.data,
        }


# where a missing id comes from, so that the error names the recovery
ID_SOURCES = {"pane_id": "list_panes", "window_id": "list_windows", "session_id": "list_sessions"}


class InvalidArgument(ToolError):
    """The arguments break the tool's schema or a rule the schema cannot say."""

    code = "invalid_argument"

    @classmethod
    def from_validation(
        cls, tool: str, error: ValidationError, model: type[BaseModel] | None = None
    ) -> InvalidArgument:
        """The error for arguments of ``tool`` that its ``model`` refused, naming each fix (an
        unknown argument: the one meant, when the model is given)."""
        parts = []
        for item in error.errors()[:5]:
            where = ".".join(str(p) for p in item["loc"]) or "arguments"
            message = item["msg"].removeprefix("Value error, ")
            last = str(item["loc"][-1]) if item["loc"] else ""
            if item["type"] == "missing" and last in ID_SOURCES:
                message = f"required: pass an exact id from {ID_SOURCES[last]}"
            elif item["type"] == "missing":
                message = "required: pass it"
            elif item["type"] == "extra_forbidden":
                message = unknown_hint(last, fields_at(model, item["loc"][:-1]))
            parts.append(f"{where}: {message}")
        return cls(
            f"invalid arguments for {tool}: " + "; ".join(parts) + " (see the tool's inputSchema)"
        )


class NotFound(ToolError):
    """A target (pane, window, session, run, cursor) does not exist."""

    code = "not_found"

    @classmethod
    def counted(cls, kind: str, target: str, tool: str, count: int) -> NotFound:
        """No ``kind`` ``target``: name the listing ``tool`` and how many of its kind exist."""
        if count == 0:
            rest = f"no {kind} exists now; call {tool} to see what there is"
        elif count == 1:
            rest = f"call {tool} for the 1 that exists"
        else:
            rest = f"call {tool} for the {count} that exist"
        return cls(
            f"no {kind} {target} on this server; {rest}", data={"kind": kind, "target": target}
        )


class Refused(ToolError):
    """Policy said no: caller pane, attended pane, not selected, busy, ..."""

    code = "refused"


class ServerGone(ToolError):
    """The tmux server is not running (any more)."""

    code = "server_gone"
    retryable = True


class TmuxFailed(ToolError):
    """tmux answered with an error the tool did not expect."""

    code = "tmux_error"


class StartupError(Exception):
    """Stops the launcher before anything is served; the message is one clear line."""


class TmuxUnresponsive(ToolError):
    """tmux did not answer within the invocation deadline (a stopped or hung server)."""

    code = "tmux_unresponsive"
    retryable = True


class SystemFault(ToolError):
    """The operating system refused something: no space, no descriptors, no binary."""

    code = "system_error"


class SocketMissing(TmuxUnresponsive):
    """The server's process still runs but its socket file is gone (moved or deleted): it is
    unreachable, not dead, and what runs in it goes on (docs/reliability.md)."""

    code = "socket_missing"


# What the operating system refused (docs/reliability.md, "Faults answer with what
# happened"): ENOSPC, EMFILE or a deleted tmux binary is not a muxport bug.
EXHAUSTED = {
    errno.EMFILE: "file descriptors",
    errno.ENFILE: "file descriptors (system-wide)",
    errno.EAGAIN: "processes",
    errno.ENOMEM: "memory",
}
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
NOT_RUNNABLE = (errno.ENOENT, errno.EACCES, errno.ENOEXEC, errno.ENOTDIR)


def os_fault(
    exc: OSError, doing: str, binary: str | None = None, delivery: Delivery = "possibly_sent"
) -> SystemFault:
    """The tool error for ``exc``, raised while ``doing`` (e.g. "starting tmux");
    ``delivery``: what reached tmux before it (the caller knows "not_sent")."""
    why = exc.strerror or str(exc)
    number = exc.errno or 0
    if binary is not None and number in NOT_RUNNABLE:
        return SystemFault(
            f"the tmux binary {binary} cannot be run ({why}): it was removed or changed "
            "under muxport; reinstall tmux (apt-get install tmux), or restart muxport with "
            "--tmux pointing at a working one",
            code="tmux_missing",
        )
    if number in EXHAUSTED:
        return SystemFault(
            f"muxport ran out of {EXHAUSTED[number]} while {doing} ({why}); nothing was "
            "done; let other calls finish (or cancel some) and try again",
            code="resource_exhausted", retryable=True,
        )
    if number in NO_SPACE:
        return SystemFault(
            f"no space left on the device while {doing} ({why}); free disk space "
            "(TMPDIR holds muxport's private files) and try again",
            code="no_space", retryable=True, delivery=delivery,
        )
    return SystemFault(
        f"{doing} failed: {why}; check the file system and permissions, then try again",
        code="os_error", delivery=delivery,
    )

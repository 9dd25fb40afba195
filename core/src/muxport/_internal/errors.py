"""Errors: what a tool raises to answer with a tool error, and what stops startup.

A ``ToolError`` message is shown to the model, so it must name the recovery
("no pane %9 on this server; call list_panes for the 3 that exist").
Anything else raised inside a tool is a bug: the client is told so, the log
keeps the traceback.
"""

from __future__ import annotations

from typing import Any, Literal

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

    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "error_code": self.code,
            "retryable": self.retryable,
            "delivery": self.delivery,
        }
        meta.update(self.data)
        return meta


class InvalidArgument(ToolError):
    """The arguments break the tool's schema or a rule the schema cannot say."""

    code = "invalid_argument"


class NotFound(ToolError):
    """A target (pane, window, session, run, cursor) does not exist."""

    code = "not_found"


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

"""Settings read from the environment once, checked before tmux is touched
(docs/reliability.md): a bad value stops startup naming the variable, the value and the fix.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from muxport._internal.answers import SETTING, configure_answer_chars
from muxport._internal.audit import Audit
from muxport._internal.budgets import WAIT_CEILING, WAIT_CEILING_LIMIT, configure_wait_ceiling
from muxport._internal.client_limits import DEFAULT_BUDGET
from muxport._internal.errors import StartupError

MiB = 1 << 20


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float,
            integer: bool = False) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        kind = "an integer" if integer else "a number"
        raise StartupError(
            f"{name}={raw!r} is not valid: it must be {kind} from {low:g} to {high:g}; "
            f"fix it or unset it (default {default:g})"
        )
    return value


@dataclass(frozen=True)
class Limits:
    """What the stdio transport holds for a client (docs/reliability.md: bounded memory)."""

    max_calls: int = 256
    max_quick_calls: int = 32
    max_pending_bytes: int = 16 * MiB
    max_request_bytes: int = 4 * MiB

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Limits:
        return cls(
            int(_number(env, "MUXPORT_MAX_CALLS", cls.max_calls, 1, 100_000, True)),
            int(_number(env, "MUXPORT_MAX_QUICK_CALLS", cls.max_quick_calls, 1, 100_000, True)),
            int(_number(env, "MUXPORT_MAX_PENDING_BYTES", cls.max_pending_bytes, 64 << 10,
                        1 << 34, True)),
            int(_number(env, "MUXPORT_MAX_REQUEST_BYTES", cls.max_request_bytes, 64 << 10,
                        1 << 31, True)),
        )


def _audit_target(env: Mapping[str, str]) -> str:
    """``LIBTMUX_AUDIT``, checked by opening it as the server will."""
    Audit.from_env(env).close()
    return env.get("LIBTMUX_AUDIT", "")


def _tmux_tmpdir(env: Mapping[str, str], used: bool) -> str | None:
    """``TMUX_TMPDIR``, where named sockets and the daemon's live: a writable directory."""
    where = env.get("TMUX_TMPDIR") or None
    if where is None or not used:
        return where
    if not os.path.isdir(where) or not os.access(where, os.W_OK | os.X_OK):
        why = "is not a directory" if not os.path.isdir(where) else "is not writable"
        raise StartupError(
            f"TMUX_TMPDIR={where!r} {why}: the daemon's socket lives there; set TMUX_TMPDIR "
            "to a writable directory (or unset it for /tmp), or choose a server with --socket"
        )
    return where


def _answer_chars(env: Mapping[str, str]) -> int | None:
    """The operator's answer budget in characters: ``MUXPORT_MAX_ANSWER_CHARS``, or its
    first name ``MUXPORT_MAX_ANSWER_BYTES`` (it counts characters now); unset: None."""
    name = SETTING if env.get(SETTING, "").strip() else "MUXPORT_MAX_ANSWER_BYTES"
    if not env.get(name, "").strip():
        return None
    return int(_number(env, name, DEFAULT_BUDGET, 8_000, 64 * MiB, True))


@dataclass(frozen=True)
class Environment:
    """Everything read from the environment besides selection and socket (those are
    parsed by ``selection`` and ``connection``, also before tmux is touched)."""

    audit: str = ""
    wait_ceiling: float = WAIT_CEILING
    tmux_tmpdir: str | None = None
    limits: Limits = field(default_factory=Limits)
    answer_chars: int | None = None  # None: each client's own budget (client_limits.py)

    @classmethod
    def from_env(cls, env: Mapping[str, str], uses_tmpdir: bool) -> Environment:
        """Parse and check every variable; the first bad one stops startup."""
        return cls(
            _audit_target(env),
            _number(env, "LIBTMUX_MCP_WAIT_MAX_SECONDS", WAIT_CEILING, 1, WAIT_CEILING_LIMIT),
            _tmux_tmpdir(env, uses_tmpdir),
            Limits.from_env(env),
            _answer_chars(env),
        )

    def apply(self) -> None:
        configure_wait_ceiling(self.wait_ceiling)
        configure_answer_chars(self.answer_chars)

"""Settings read from the environment once, checked before tmux is touched
(docs/reliability.md): a bad value stops startup naming the variable, the value and the fix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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

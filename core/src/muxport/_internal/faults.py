"""What the operating system refused, as tool errors that say so (docs/reliability.md,
"Faults answer with what happened"): ``ENOSPC``, ``EMFILE`` or a deleted tmux binary is not
a muxport bug; ``tool_error_of`` also unwraps tool errors raised inside task groups.
"""

from __future__ import annotations

import errno

from muxport._internal.errors import Delivery, SystemFault, ToolError

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


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups; ``exc`` itself otherwise."""
    if isinstance(exc, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in exc.exceptions:
            found.extend(leaves(inner))
        return found
    return [exc]


def tool_error_of(exc: BaseException, doing: str) -> ToolError | None:
    """The tool error that ``exc`` stands for, or None when it is a real bug.

    A group answers with its first tool error, unless it also holds a bug: a bug is
    never hidden behind the tool error beside it.
    """
    mapped: list[ToolError] = []
    for leaf in leaves(exc):
        if isinstance(leaf, ToolError):
            mapped.append(leaf)
        elif isinstance(leaf, OSError):
            mapped.append(os_fault(leaf, doing))
        else:
            return None
    return mapped[0] if mapped else None

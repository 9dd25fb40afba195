"""Tool errors out of whatever a tool raised: exception groups unwrapped, a tool error
inside kept, an ``OSError`` answered as what the operating system refused
(``errors.os_fault``; docs/reliability.md, "Faults answer with what happened").
"""

from __future__ import annotations

from muxport._internal.errors import ToolError, os_fault


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

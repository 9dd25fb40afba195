"""Which muxport process owns a run's private state, and whether it still lives
(docs/reliability.md, "Cleanup after a crash").

A run's private directory is one of the core's ``PrivateDirs`` (``mxr-``): named after the
process that made it, ``mxr-<pid>.<start>.<scope>-<random>``, and judged dead by the same
rules as every private directory of muxport (``muxport.PrivateDirs``). The run's raw-output
pipe writes into that directory, so its command line (``dd ... of=``) names the owner too.
"""

from __future__ import annotations

from muxport import PrivateDirs

RUNS = PrivateDirs("mxr-")
Owner = PrivateDirs.Owner


def me() -> Owner | None:
    """This process as an owner (None: ``/proc`` cannot say)."""
    return PrivateDirs.me()


def directory_prefix() -> str:
    """The name a new private directory of this process begins with."""
    return RUNS.name_prefix()


def owner_of(name: str) -> Owner | None:
    """The owner a private directory's name records (None: not such a name)."""
    return RUNS.owner_of(name)


def is_dead(owner: Owner) -> bool:
    """The owner has exited, as far as this process can prove it."""
    return PrivateDirs.is_dead(owner)

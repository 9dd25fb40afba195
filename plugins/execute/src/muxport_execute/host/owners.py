"""Which muxport process owns a run's private state, and whether it still lives
(docs/reliability.md, "Cleanup after a crash").

A run's private directory is named after the process that made it:
``mxr-<pid>.<start>.<scope>-<random>``. ``start`` is that process's start time (clock
ticks since boot, ``/proc/<pid>/stat``): a pid alone is reused, a pid and its start time
name one process of one boot. ``scope`` is a short hash of the boot id and of the pid
namespace, since a pid means something only in its own namespace and boot. The run's
raw-output pipe writes into that directory, so its command line (``dd ... of=``) names the
owner too.

An owner is dead only when it is of this process's scope and no process has its pid and
start time (or the one that has is a zombie). An owner of another scope (a container
sharing ``/tmp``, an earlier boot) and a name without an owner (an older muxport's) are
never dead: what they left is not touched. Where ``/proc`` cannot tell, nothing is.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

from muxport_execute.host.procs import stat

PREFIX = "mxr-"
NAME = re.compile(r"^mxr-([0-9]{1,10})\.([0-9]{1,20})\.([0-9a-f]{8})-[A-Za-z0-9_]{1,32}$")


@dataclass(frozen=True)
class Owner:
    """The muxport process a run's private state belongs to."""

    pid: int
    start: int  # clock ticks after boot
    scope: str  # boot id and pid namespace, hashed

    @property
    def key(self) -> str:
        return f"{self.pid}.{self.start}.{self.scope}"


def _scope() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as file:
            boot = file.read().strip()
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return None
    return hashlib.sha256(boot + b"\0" + namespace.encode()).hexdigest()[:8]


_ME: dict[int, Owner | None] = {}


def me() -> Owner | None:
    """This process as an owner (None: ``/proc`` cannot say)."""
    pid = os.getpid()
    if pid not in _ME:
        seen, scope = stat(pid), _scope()
        _ME[pid] = None if seen is None or scope is None else Owner(pid, seen.start_ticks, scope)
    return _ME[pid]


def directory_prefix() -> str:
    """The name a new private directory of this process begins with."""
    owner = me()
    return PREFIX if owner is None else f"{PREFIX}{owner.key}-"


def owner_of(name: str) -> Owner | None:
    """The owner a private directory's name records (None: not such a name)."""
    found = NAME.match(name)
    if found is None:
        return None
    return Owner(int(found[1]), int(found[2]), found[3])


def is_dead(owner: Owner) -> bool:
    """The owner has exited, as far as this process can prove it."""
    mine = me()
    if mine is None or owner.scope != mine.scope:
        return False
    seen = stat(owner.pid)
    return seen is None or seen.start_ticks != owner.start or seen.state in ("Z", "X")

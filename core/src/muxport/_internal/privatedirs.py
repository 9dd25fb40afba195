"""Private directories named after the muxport process that owns them, swept once that
process is gone (docs/reliability.md, "Cleanup after a crash"; docs/ssh.md, "Security").

A directory is ``<prefix><pid>.<start>.<scope>-<random>``, made 0700 by ``mkdtemp``.
``start`` is the owner's start time (clock ticks after boot, ``/proc/<pid>/stat``): a pid
alone is reused, a pid and its start time name one process of one boot. ``scope`` is a
short hash of the boot id and of the pid namespace, since a pid means something only in
its own namespace and boot.

An owner is dead only when it is of this process's scope and no process has its pid and
start time (or the one that has is a zombie). An owner of another scope (a container
sharing ``/tmp``, an earlier boot) and a name without an owner (an older muxport's) are
never dead: what they left is not touched. Where ``/proc`` cannot tell, nothing is.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path


def _start(pid: int) -> tuple[int, str] | None:
    """The process's start time (clock ticks after boot) and state; None: no such process.
    Out of descriptors ``/proc`` says nothing of the process: raised, never "gone"."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as file:
            fields = file.read().rpartition(b")")[2].split()
        return int(fields[19]), fields[0].decode()
    except OSError as exc:
        if exc.errno in (errno.EMFILE, errno.ENFILE):
            raise
        return None
    except (ValueError, IndexError):
        return None


def _scope() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as file:
            boot = file.read().strip()
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return None
    return hashlib.sha256(boot + b"\0" + namespace.encode()).hexdigest()[:8]


_ME: dict[int, PrivateDirs.Owner | None] = {}


class PrivateDirs:
    """The private directories of one purpose (``prefix``: ``mxr-``, ``muxport-ssh-``)
    under ``base`` (the temporary directory by default): make, own, sweep."""

    @dataclass(frozen=True)
    class Owner:
        """The muxport process a private directory belongs to."""

        pid: int
        start: int  # clock ticks after boot
        scope: str  # boot id and pid namespace, hashed

        @property
        def key(self) -> str:
            return f"{self.pid}.{self.start}.{self.scope}"

    def __init__(self, prefix: str, base: str | None = None) -> None:
        self.prefix = prefix
        self.base = base
        self._name = re.compile(
            rf"^{re.escape(prefix)}([0-9]{{1,10}})\.([0-9]{{1,20}})\.([0-9a-f]{{8}})-"
            r"[A-Za-z0-9_]{1,32}$")

    @staticmethod
    def me() -> PrivateDirs.Owner | None:
        """This process as an owner (None: ``/proc`` cannot say)."""
        pid = os.getpid()
        if pid not in _ME:
            seen, scope = _start(pid), _scope()
            _ME[pid] = None if seen is None or scope is None else PrivateDirs.Owner(
                pid, seen[0], scope)
        return _ME[pid]

    def name_prefix(self) -> str:
        """What the name of a new directory of this process begins with."""
        owner = self.me()
        return self.prefix if owner is None else f"{self.prefix}{owner.key}-"

    def make(self, base: str | None = None) -> str:
        """A new private directory (0700), named after this process where ``/proc`` can say."""
        return tempfile.mkdtemp(prefix=self.name_prefix(), dir=base or self.base)

    def owner_of(self, name: str) -> PrivateDirs.Owner | None:
        """The owner a directory's name records (None: not such a name)."""
        found = self._name.match(name)
        return None if found is None else self.Owner(int(found[1]), int(found[2]), found[3])

    @classmethod
    def is_dead(cls, owner: PrivateDirs.Owner) -> bool:
        """The owner has exited, as far as this process can prove it."""
        mine = cls.me()
        if mine is None or owner.scope != mine.scope:
            return False
        seen = _start(owner.pid)
        return seen is None or seen[0] != owner.start or seen[1] in ("Z", "X")

    def dead(self, base: str | None = None) -> list[Path]:
        """This user's directories under ``base`` whose owner is dead (blocking: a scan)."""
        found = []
        try:
            with os.scandir(base or self.base or tempfile.gettempdir()) as entries:
                listed = list(entries)
        except OSError:
            return []
        for entry in listed:
            owner = self.owner_of(entry.name)
            try:  # what cannot be judged (no descriptors left) is kept
                if owner is None or not self.is_dead(owner):
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
                found.append(Path(entry.path))
        return found

    def sweep(self, base: str | None = None) -> int:
        """Remove the directories whose owner is dead; how many were removed (blocking)."""
        removed = self.dead(base)
        for path in removed:
            shutil.rmtree(path, ignore_errors=True)
        return len(removed)

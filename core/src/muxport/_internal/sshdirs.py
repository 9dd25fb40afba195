"""The private directories of ssh masters (docs/ssh.md, "Security"): each is named after
the muxport that made it (its pid, its start time and a hash of the boot and the pid
namespace, as a pid alone is reused), so that the directory of a muxport that was killed
(SIGKILL leaves it; its master ends with it) is removed by the next ``muxport --ssh``.
Only directories of this user, of this boot and namespace, whose owner is gone are."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile

PREFIX = "muxport-ssh-"
NAME = re.compile(r"^muxport-ssh-([0-9]{1,10})\.([0-9]{1,20})\.([0-9a-f]{8})-")


def _start(pid: int) -> int | None:
    """The process's start time (clock ticks after boot); None: gone, or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rpartition(b") ")[2].split()
    except OSError:
        return None
    return None if fields[:1] in ([b"Z"], [b"X"]) else int(fields[19])


def _scope() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as file:
            boot = file.read().strip()
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        return None
    return hashlib.sha256(boot + b"\0" + namespace.encode()).hexdigest()[:8]


def make() -> str:
    """A new private directory (0700), named after this process where ``/proc`` can say."""
    start, scope = _start(os.getpid()), _scope()
    owner = f"{os.getpid()}.{start}.{scope}-" if start is not None and scope else ""
    return tempfile.mkdtemp(prefix=PREFIX + owner)


def sweep() -> int:
    """Remove the directories whose muxport is gone; how many were removed."""
    scope, removed = _scope(), 0
    if scope is None:
        return 0
    with os.scandir(tempfile.gettempdir()) as entries:
        for entry in entries:
            found = NAME.match(entry.name)
            if found is None or found[3] != scope:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                continue
            if _start(int(found[1])) != int(found[2]):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed += 1
    return removed

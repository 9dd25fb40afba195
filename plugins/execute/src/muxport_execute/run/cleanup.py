"""Cleanup after a crash (docs/reliability.md): what dead muxports left, removed when the
run table starts (``RunTable.start``), before the first call is served.

A muxport killed mid-run (kill -9, OOM) leaves its runs' private directories (the command
text, the raw copy), their raw-output pipes (``pipe-pane``: the copy would collect all
the pane prints, and later runs there would lose ``invalid_utf8``) and their ``wait-for``
waiters (a killed waiter stays registered in tmux; a forked one keeps running). Each is
removed only when it is proven a dead owner's (host/owners.py):

- a directory ``mxr-<owner>-…`` of this user, whose owner is dead;
- a pipe whose process is a child of the served tmux server (its pid read from tmux and
  its start time checked against ``/proc``) and is ``dd ... of=<dir>/raw.<N>`` with
  ``<dir>`` a dead owner's: closed with ``pipe-pane -t %N``;
- a waiter: the channel of a dead run on the served server whose frame never wrote its
  status (so it never signalled) is signalled once (``wait-for -S``), which wakes it.

What a live muxport owns (another one serving the same server) is never touched: its pid
and start time still name a running process. The amounts are logged and recorded in
``muxport-cleanup-<uid>.json`` beside the directories, which ``muxport doctor`` shows
(``survey``). A muxport serving a server on another host (``--ssh``) cleans nothing
(docs/run-outcomes.md, "A server on another host").
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from muxport import Tmux, ToolError

from muxport_execute.frames.local_files import base_dir, waiting_channel
from muxport_execute.frames.where import far_host
from muxport_execute.host import owners, procs
from muxport_execute.pane import raw_bytes

log = logging.getLogger(__name__)
CLOCK_SLACK = 2.0  # seconds between tmux's start_time and /proc's start of the same process


@dataclass
class Cleaned:
    """What one cleanup removed."""

    directories: int = 0
    pipes: int = 0
    waiters: int = 0

    def __bool__(self) -> bool:
        return bool(self.directories or self.pipes or self.waiters)


def dead_directories(base: str) -> list[Path]:
    """The private directories of this user's dead owners under ``base``."""
    found = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    for entry in entries:
        owner = owners.owner_of(entry.name)
        if owner is None or not owners.is_dead(owner):
            continue
        try:
            mine = entry.stat(follow_symlinks=False).st_uid == os.getuid()
            if mine and entry.is_dir(follow_symlinks=False):
                found.append(Path(entry.path))
        except OSError:
            continue
    return found


async def served_pid(tmux: Tmux) -> int | None:
    """The served tmux server's pid, when ``/proc`` shows that process started when the
    server says it did (None: no server, or not provably this one)."""
    said = await tmux.run(("display-message", "-p", "#{pid} #{start_time}"), check=False)
    words = said.stdout.split() if said.returncode == 0 else []
    if len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    age = procs.age(int(words[0]))
    if age is None or abs(time.time() - age - int(words[1])) > CLOCK_SLACK:
        return None
    return int(words[0])


def dead_pipes(server: int) -> list[tuple[int, str]]:
    """The pipes of dead owners on the server ``server``: (the pipe's pid, its pane)."""
    found = []
    for child in sorted(procs.children(server)):
        piped = raw_bytes.pipe_of(procs.command_line(child))
        owner = None if piped is None else owners.owner_of(piped[0].name)
        if piped is not None and owner is not None and owners.is_dead(owner):
            found.append((child, piped[1]))
    return found


async def _send(tmux: Tmux, commands: Sequence[Sequence[str]]) -> int:
    """Run ``commands`` (one invocation; one by one if that fails): how many succeeded."""
    if not commands:
        return 0
    if (await tmux.run(*commands, check=False)).returncode == 0:
        return len(commands)
    done = 0
    for command in commands:
        done += (await tmux.run(command, check=False)).returncode == 0
    return done


async def after_crashes(tmux: Tmux) -> Cleaned:
    """Remove what dead owners left. Never raises: a fault is logged, and what could not
    be removed is left for the next start (startup goes on)."""
    cleaned = Cleaned()
    if far_host(tmux) is not None:
        # A server on another host (--ssh): its pid and its pipes' processes are that
        # host's, never in this machine's /proc, and no run of this machine's directories
        # ran there (every run on it is typed, with no files). The directories stay for the
        # next muxport serving their own server: their channels name the waiters it wakes.
        return cleaned
    try:
        directories = dead_directories(base_dir())
        try:
            await _end_in_tmux(tmux, directories, cleaned)
        except (ToolError, OSError) as exc:  # tmux stalled or failing: the files still go
            log.warning("cleanup after a crash could not reach tmux: %s", exc)
        cleaned.directories = remove(directories)
    except Exception:  # a bug here must not stop the server from starting
        log.exception("cleanup after a crash failed")
    if cleaned:
        log.warning(
            "removed what dead muxports left: %d run directories, %d pipes, %d waiters",
            cleaned.directories, cleaned.pipes, cleaned.waiters,
        )
        record(cleaned, tmux.socket_path)
    return cleaned


def remove(directories: list[Path]) -> int:
    """Remove ``directories``: how many are gone (before the first call: nothing waits)."""
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)
    return sum(not os.path.lexists(directory) for directory in directories)


async def _end_in_tmux(tmux: Tmux, directories: list[Path], cleaned: Cleaned) -> None:
    """Wake the dead runs' waiters on the served server, then close their pipes."""
    channels = [waiting_channel(d, tmux.socket_path) for d in directories]
    cleaned.waiters = await _send(tmux, [("wait-for", "-S", "--", c) for c in channels if c])
    server = await served_pid(tmux)
    pipes = dead_pipes(server) if server is not None else []
    # still the dead run's pipe right before it is closed (a replaced one has ended its dd)
    cleaned.pipes = await _send(
        tmux, [raw_bytes.close_pipe(pane) for pid, pane in pipes if procs.alive(pid)]
    )


def record_path() -> Path:
    return Path(base_dir()) / f"muxport-cleanup-{os.getuid()}.json"


def record(cleaned: Cleaned, socket_path: str) -> None:
    """Keep what this cleanup removed for ``muxport doctor`` (written whole, then renamed)."""
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    text = json.dumps({"at": at, "pid": os.getpid(), "socket": socket_path, **asdict(cleaned)})
    with contextlib.suppress(OSError):
        fd, temporary = tempfile.mkstemp(prefix="muxport-cleanup-", dir=base_dir())
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, record_path())
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def last_record() -> dict[str, Any] | None:
    """The last cleanup that removed anything, if this user's record says so."""
    try:
        fd = os.open(record_path(), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, encoding="utf-8") as file:
        if os.fstat(fd).st_uid != os.getuid():
            return None
        try:
            found = json.loads(file.read(4096))
        except ValueError:
            return None
    return found if isinstance(found, dict) else None


def survey() -> dict[str, Any]:
    """What doctor says (toolset facts): what dead muxports left in their directories now,
    and what the last cleanup removed. Reads files only, never tmux."""
    left = dead_directories(base_dir())
    unfinished = sum(not (d / "status").exists() for d in left)
    return {
        "left_now": {"directories": len(left), "unfinished_runs": unfinished},
        "last_cleanup": last_record(),
        "how": "each muxport with run_shell_command removes what dead muxports left "
        "(run directories, pipe-panes on the served server, waiters) when it starts; "
        "not one serving a server on another host (--ssh)",
    }

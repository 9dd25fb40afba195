"""Is muxport running inside a pane of the server it serves? (docs/architecture.md)

Proven by ``TMUX_PANE`` plus the socket path in ``TMUX`` (resolved and compared
with the served socket); when the environment lacks them, by walking the
process tree up to a pane's process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from muxport._internal.transport import Transport

Relation = Literal["inside", "other-server", "outside", "unknown"]


@dataclass(frozen=True)
class Caller:
    """``pane_id`` is set only when ``relation`` is ``inside``."""

    relation: Relation
    pane_id: str | None = None
    how: str = ""

    def marks(self, pane_id: str) -> bool | None:
        """The ``caller`` field of a pane: true, false, or null outside tmux."""
        if self.relation == "inside":
            return pane_id == self.pane_id
        if self.relation == "other-server":
            return False
        return None

    @property
    def proven(self) -> bool:
        return self.relation != "unknown"


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _ancestors(pid: int) -> list[int]:
    chain: list[int] = []
    while pid > 1 and len(chain) < 64:
        chain.append(pid)
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
                pid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return chain


async def detect(tmux: Transport, env: Mapping[str, str]) -> Caller:
    """Work out the caller relation once, at startup."""
    if not tmux.host.local:  # its panes' pids are the far host's, not ancestors
        return Caller("outside", None, f"the served server is on {tmux.host.name} "
                                       f"({tmux.host.kind})")
    tmux_env, pane = env.get("TMUX", ""), env.get("TMUX_PANE", "")
    if tmux_env:
        socket = tmux_env.split(",")[0]
        if not _same_file(socket, tmux.socket_path):
            return Caller("other-server", None, "TMUX names another server's socket")
        if pane.startswith("%"):
            return Caller("inside", pane, "TMUX_PANE and TMUX socket")
    listing = await tmux.run(("list-panes", "-a", "-F", "#{pane_pid} #{pane_id}"), check=False)
    if listing.returncode != 0:
        return Caller("unknown" if tmux_env else "outside", None, "no panes to compare with")
    pane_of = dict(line.split(" ", 1) for line in listing.lines if " " in line)
    for pid in _ancestors(os.getpid()):
        if str(pid) in pane_of:
            return Caller("inside", pane_of[str(pid)], "process tree")
    if tmux_env:
        return Caller("unknown", None, "TMUX set but TMUX_PANE missing and no pane process found")
    return Caller("outside", None, "no TMUX in the environment and no pane among the ancestors")

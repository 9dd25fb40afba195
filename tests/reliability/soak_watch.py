"""What the soak watches in the processes (soak_kit.py): a launcher's memory, whether the
tmux server is alive and answers, and who is still connected to its socket."""

from __future__ import annotations

import subprocess
from pathlib import Path

from muxport.testing import TmuxServer


def rss(pid: int) -> int:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) << 10
    return 0


def alive(pid: int) -> bool:
    """The process exists and is no zombie (a crashed tmux server is reaped by init)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def holders(socket_path: str) -> list[str]:
    """The processes at the other end of the server's connections (from ``ss``): any
    client still connected, muxport's or a forked tmux. (The server's own count of
    sockets is not used for this: tmux 3.3a was seen to keep one socket whose peer had
    closed, a detail of the server, not a client left behind.)"""
    table = subprocess.run(["ss", "-xpn"], capture_output=True, text=True, check=False).stdout
    rows = [row.split() for row in table.splitlines()[1:]]
    peers = {row[7] for row in rows if len(row) > 7 and row[4] == socket_path}
    return [" ".join(row[4:]) for row in rows if len(row) > 5 and row[5] in peers]


def answers(server: TmuxServer) -> bool:
    """The server still answers on its socket (a crashed one leaves the socket file)."""
    try:
        server.cmd("list-sessions", timeout=5)
    except (RuntimeError, OSError, subprocess.SubprocessError):
        return False
    return True

"""Which frame a run uses: the local one (private files, tmux wait-for) or the typed one.

The local frame needs a shell that can read muxport's private 0600 files and run its
tmux binary: a POSIX shell or fish, of muxport's own user, in the foreground. A carrier
in the foreground (ssh, su, sudo, docker...) or a shell of another user gets the typed
frame (frames/typed_text.py). The caller may force either; forcing the local frame onto a
carrier is refused, since nothing on the far side could read the files.

A server on another host (``muxport --ssh``: ``Tmux.remote_host``) gets the typed frame in
every pane, whatever runs there: its pids are that host's, so this machine's ``/proc`` says
nothing about them, and no shell there can read this machine's private files
(docs/run-outcomes.md, "A server on another host").
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import Any, Literal

from muxport import Refused

from muxport_execute.frames.base import FrameName
from muxport_execute.frames.typed_text import CARRIERS, MAX_TYPED, Kind, is_carrier
from muxport_execute.host.procs import foreground_group
from muxport_execute.notes import is_posix_shell, program_name

Requested = Literal["auto", "local", "typed"]


@dataclass(frozen=True)
class Reach:
    frame: FrameName
    kind: Kind | None  # None: the far shell is unknown, the typed frame probes it first
    local_view: bool  # the run's processes are on this machine: /proc shows them
    carrier: str = ""  # the carrier in the foreground (ssh, su...), if any


def foreground_uid(pane_pid: str) -> int | None:
    """The user of the pane's foreground process group leader (Linux ``/proc``)."""
    group = foreground_group(pane_pid)
    for pid in (group, pane_pid):
        if pid is None:
            continue
        try:
            return os.stat(f"/proc/{int(pid)}").st_uid
        except (OSError, ValueError):
            continue
    return None


def choose(
    requested: Requested, command: str, pane_pid: str, pane_id: str, *, remote_host: str | None
) -> Reach:
    """The frame for a pane whose foreground program is ``command`` (``remote_host``: the
    served server's host when it is another one, ``Tmux.remote_host``)."""
    name = program_name(command)
    if remote_host is not None and requested == "local":
        raise Refused(
            f"the tmux server runs on {remote_host} (--ssh): the local frame needs a shell "
            "that reads muxport's private files on this machine, and a shell there cannot; "
            "use frame 'typed' (or 'auto')",
            data={"reason": "local_frame_unreachable", "pane_id": pane_id,
                  "remote_host": remote_host},
        )
    if is_carrier(name):
        if requested == "local":
            raise Refused(
                f"pane {pane_id} is running {name}: the local frame needs a shell that reads "
                "muxport's private files, and the far side of a carrier cannot; use frame "
                "'typed' (or 'auto')",
                data={"reason": "local_frame_unreachable", "pane_id": pane_id, "command": name},
            )
        return Reach("typed", None, False, name)
    kind: Kind | None = "fish" if name == "fish" else "posix" if is_posix_shell(name) else None
    if kind is None:
        raise Refused(
            f"pane {pane_id} is running {command or 'no program'}, not a shell "
            "(sh, bash, zsh, dash, ksh, fish) nor a carrier of one (ssh, su, sudo, docker...), "
            "so run_shell_command cannot frame a command there; use send_keys to type into it",
            data={"reason": "not_a_shell", "pane_id": pane_id, "command": command},
        )
    if remote_host is not None:  # the far host's shell: no /proc here shows its user
        return Reach("typed", kind, False)
    uid = foreground_uid(pane_pid)
    other_user = uid is not None and uid != os.geteuid()
    if requested == "typed" or (requested == "auto" and other_user):
        return Reach("typed", kind, True)
    return Reach("local", kind, True)


def _proc_shows_syscalls() -> bool:
    try:
        with open("/proc/self/syscall") as f:
            return bool(f.read().strip())
    except OSError:
        return False


def installation() -> dict[str, Any]:
    """Which frames this machine can use (tmux://capabilities, muxport doctor)."""
    local_shells = sorted(
        name for name in {"sh", "bash", "zsh", "dash", "ksh", "fish"} if shutil.which(name)
    )
    if "fish" in local_shells and "sh" not in local_shells:
        local_shells.remove("fish")  # the fish frame runs under sh
    return {
        "frames": {
            "local": {
                "available": True,
                "shells_installed": local_shells,
                "how": "private 0600 script sourced by the pane's shell; tmux wait-for",
                "servers": "on this machine only: a server on another host (--ssh) runs "
                "every command typed",
            },
            "typed": {
                "available": True,
                "carriers": sorted(CARRIERS),
                "max_typed_chars": MAX_TYPED,
                "far_side_needs": "a POSIX shell with printf (fish: fish 3.1+ and sh)",
                "how": "one typed line; markers and status read from the pane's output",
            },
        },
        "waiting_for_input": {
            "available": _proc_shows_syscalls(),
            "where": "runs on this machine (local panes, su): /proc; a shell's runs on a "
            "server on another host (--ssh): that host's /proc, read by tmux if-shell; "
            "over ssh, sudo and containers in a pane the timeout applies",
        },
    }

"""Which frame a run uses: the first kind of the table (frames/kinds.py) that applies to
the pane, or the kind the caller asked for by name, which may refuse it.

The choice reads what the kinds decide by: the pane's foreground program (a shell, a
carrier of one), where the served server runs (frames/where.py: a server on another host
gets no frame that needs this machine's ``/proc`` or files) and, when a kind asks, the
foreground process's user. The built-in kinds decide as docs/run-outcomes.md says
("Frames", "A server on another host"): the local frame for a shell of muxport's own
user on this machine, the typed frame for a carrier (ssh, su, sudo, docker...), a shell
of another user, and every pane of a server on another host.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from muxport import InvalidArgument, Refused

from muxport_execute.frames import kinds
from muxport_execute.frames.kinds import Kind, PaneFacts, Reach
from muxport_execute.frames.typed_text import is_carrier
from muxport_execute.host.procs import foreground_group
from muxport_execute.notes import is_posix_shell, program_name

Requested = Literal["auto", "local", "typed"]  # what the tool's schema offers


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


def _other_user(pane_pid: str) -> bool:
    uid = foreground_uid(pane_pid)
    return uid is not None and uid != os.geteuid()


def choose(
    requested: str, command: str, pane_pid: str, pane_id: str, *, far_host: str | None
) -> Reach:
    """The frame for a pane whose foreground program is ``command`` (``far_host``: the
    served server's host when it is another one, frames/where.py)."""
    name = program_name(command)
    shell: Kind | None = "fish" if name == "fish" else "posix" if is_posix_shell(name) else None
    pane = PaneFacts(requested, name, shell, is_carrier(name), pane_id, far_host,
                     lambda: _other_user(pane_pid))
    if requested == "auto":
        asked = list(kinds.kinds())
    else:
        kind = kinds.named(requested)
        if kind is None:
            names = ", ".join(k.name for k in kinds.kinds())
            raise InvalidArgument(f"no frame {requested!r}: use auto or one of {names}")
        asked = [kind]
    for kind in asked:
        reach = kind.applies(pane)  # a kind asked for by name may refuse here
        if reach is not None:
            return reach
    raise Refused(
        f"pane {pane_id} is running {command or 'no program'}, not a shell "
        "(sh, bash, zsh, dash, ksh, fish) nor a carrier of one (ssh, su, sudo, docker...), "
        "so run_shell_command cannot frame a command there; use send_keys to type into it",
        data={"reason": "not_a_shell", "pane_id": pane_id, "command": command},
    )


def _proc_shows_syscalls() -> bool:
    try:
        with open("/proc/self/syscall") as f:
            return bool(f.read().strip())
    except OSError:
        return False


def installation() -> dict[str, Any]:
    """Which frames this machine can use (tmux://capabilities, muxport doctor)."""
    return {
        "frames": {kind.name: {"available": True, **kind.facts()} for kind in kinds.kinds()},
        "waiting_for_input": {
            "available": _proc_shows_syscalls(),
            "where": "runs on this machine (local panes, su): /proc; a shell's runs on a "
            "server on another host (--ssh): that host's /proc, read by tmux if-shell; "
            "over ssh, sudo and containers in a pane the timeout applies",
        },
    }

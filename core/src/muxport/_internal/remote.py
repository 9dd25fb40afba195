"""Connecting to a tmux server on another host (``--ssh``; docs/ssh.md): what the far host
says of itself, its socket, and the dedicated daemon started there.

One ssh session at startup runs a short POSIX ``sh`` script (no Python on the far side):
it resolves the far tmux binary, the far user's socket directory and home, and prints
``tmux -V``. ``--socket``, ``--socket-name`` and ``--tmux`` name the far host's paths.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from muxport._internal.errors import StartupError
from muxport._internal.facts import refuse_control_chars
from muxport._internal.sshhost import SshHost
from muxport._internal.transport import Transport

# $1 the tmux binary asked for, $2 "mk" to create the socket directory (the daemon's), $3 a
# fresh marker: the answer starts on the line after it, so whatever a far login rc file
# prints first (a motd, a title escape, a word with no newline) is read past
DISCOVER = r"""
printf '\n%s\n' "$3"
b=$(command -v "$1") || { echo missing; exit 0; }
d="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)"
[ "$2" = mk ] && mkdir -p -m 700 "$d"
printf '%s\n%s\n%s\n' "$b" "$d" "${HOME:-/}"
"$b" -V
"""
SHOWN = 200  # characters of an unexpected far answer quoted in the startup error


@dataclass(frozen=True)
class FarHost:
    """What the far host answered: its tmux binary and version, socket directory, home."""

    binary: str
    socket_dir: str
    home: str
    version: str


async def discover(host: SshHost, tmux_bin: str | None, make_dir: bool) -> FarHost:
    """Ask the far host (startup: failures stop it, naming the fix)."""
    name = tmux_bin or "tmux"
    marker = f"muxport-{secrets.token_hex(8)}"
    done = await host.run(["sh", "-c", DISCOVER, "sh", name, "mk" if make_dir else "", marker])
    text = done.stdout.decode("utf-8", "replace")
    out = text.splitlines()
    if marker not in out:
        err = done.stderr.decode("utf-8", "replace").strip()
        said = f"it printed {text[:SHOWN]!r}" if text else "it printed nothing"
        raise StartupError(
            f"{host.destination} did not run muxport's check (status {done.returncode}; "
            f"{said}{'; ' + err[:SHOWN] if err else ''}): muxport runs `sh -c` there, "
            "through the far user's login shell, and needs a POSIX sh and tmux on that host")
    rest = [*out[out.index(marker) + 1 :], "", "", "", ""]
    if rest[0] == "missing":
        raise StartupError(
            f"no tmux binary {name!r} on {host.destination}: install tmux >= 3.2a there "
            "(apt-get install tmux) or name the far binary with --tmux PATH"
        )
    return FarHost(rest[0], rest[1], rest[2] or "/", rest[3].strip())


def daemon_commands(config: str) -> list[tuple[str, ...]]:
    """The daemon's configuration file as commands, run in the invocation that starts the
    far daemon (the local file is not on the far host); one command a line, as it is."""
    commands = []
    with open(config, encoding="utf-8") as file:
        for line in file:
            words = line.split("#", 1)[0].split()
            if words:
                commands.append(tuple(words))
    return commands


def ssh_settings(destination: str | None, options: Sequence[str]) -> tuple[str | None,
                                                                           tuple[str, ...]]:
    """``--ssh`` and its ``--ssh-option`` values, checked: a destination is never read as
    an option of ssh, and each option is one ``KEY=VALUE``."""
    if destination is None:
        if options:
            raise StartupError("--ssh-option needs --ssh DESTINATION (the far host)")
        return None, ()
    refuse_control_chars(destination, "ssh destination")
    if not destination or destination.startswith("-") or any(c.isspace() for c in destination):
        raise StartupError(
            f"ssh destination {destination!r} is not a host: pass user@host or a Host alias "
            "of ~/.ssh/config (options go in --ssh-option KEY=VALUE)")
    for option in options:
        refuse_control_chars(option, "ssh option")
        key, equals, _ = option.partition("=")
        if not equals or not key.isalnum():
            raise StartupError(
                f"--ssh-option {option!r} is not KEY=VALUE (for example Port=2222 or "
                "IdentityFile=~/.ssh/id_ed25519)")
    return destination, tuple(options)


async def connect_far(destination: str, options: Sequence[str], tmux_bin: str | None,
                      socket_path: str | None, socket_name: str) -> Transport:
    """The transport of the far host's server at ``socket_path`` (or ``socket_name`` in
    the far user's socket directory): the master up, the far host asked, the socket
    forwarded (startup: every failure stops it naming the fix)."""
    host = SshHost(destination, options)
    try:
        await host.connect()
        far = await discover(host, tmux_bin, not socket_path)
        path = socket_path or f"{far.socket_dir}/{socket_name}"
        if not path.startswith("/"):
            raise StartupError(f"--socket {path!r} must be an absolute path on {host.destination}")
        host.remote_socket = path
        host.known_version = far.version  # read past anything a far rc file printed first
        await host.forward()
        tmux = Transport(far.binary, path, host)
    except BaseException:
        await host.close()
        raise
    # a far tmux client would send the far environment and directory, not this machine's
    tmux.wire.identity = ({}, far.home)
    return tmux

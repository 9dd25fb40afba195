"""Which tmux server is served, how it was chosen, the dedicated daemon (docs/architecture.md)."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio

from muxport._internal.errors import StartupError
from muxport._internal.facts import TmuxResult, refuse_control_chars, version_key
from muxport._internal.remote import connect_far, daemon_commands, ssh_settings
from muxport._internal.shutdown import SIGNAL_CLOSE
from muxport._internal.transport import Transport

DAEMON_NAME = "muxport"
OWNER_OPTION = "@muxport-owner"
FLOOR = (3, 2, "a")  # older: README, "tmux versions", says what fails on each
DAEMON_CONFIG = Path(__file__).with_name("daemon.conf")
State = Literal["created", "existing", "absent"]


@dataclass(frozen=True)
class Settings:
    """Launch settings after flags and environment are merged (flags win)."""

    socket_path: str | None
    socket_name: str | None
    tmux_bin: str | None
    tmux_config: str | None
    selector_source: str
    ssh: str | None = None  # the far host's destination: its tmux server is served
    ssh_options: tuple[str, ...] = ()  # each passed as ``ssh -o KEY=VALUE``


@dataclass
class Connection:
    """The served server as reported by ``tmux://capabilities``."""

    selector: str
    source: str
    socket_path: str
    state: State
    config: str
    version: str
    tmux: Transport
    server_version: str = ""  # the running server's own, which may differ from the binary's

    @property
    def attach_command(self) -> str:
        return self.tmux.host.attach(f"{self.tmux.binary} -S {self.socket_path} attach -r")

    def report(self) -> dict[str, str]:
        return {
            **self.tmux.host.report(),
            "selector": self.selector,
            "source": self.source,
            "socket_path": self.socket_path,
            "server_state": self.state,
            "configuration": self.config,
            "tmux_version": self.version,
            "server_version": self.server_version or "unknown (no server yet)",
            **{f"transport_{k}": v for k, v in self.tmux.wire.report().items()},
            "attach_command": self.attach_command,
        }


def settings_from(
    env: dict[str, str], socket: str | None, socket_name: str | None, tmux_bin: str | None,
    ssh: str | None = None, ssh_options: Sequence[str] = (),
) -> Settings:
    """Merge flags over the environment; both socket selectors at once stop startup."""
    far = ssh_settings(ssh if ssh is not None else env.get("LIBTMUX_SSH") or None, ssh_options)
    if socket and socket_name:
        raise StartupError("--socket and --socket-name are mutually exclusive; pass one")
    source = "flags" if socket or socket_name else ""
    if not source:
        socket = env.get("LIBTMUX_SOCKET_PATH") or None
        socket_name = env.get("LIBTMUX_SOCKET") or None
        if socket and socket_name:
            raise StartupError(
                "LIBTMUX_SOCKET_PATH and LIBTMUX_SOCKET are mutually exclusive; unset one"
            )
        source = "environment" if socket or socket_name else "default"
    for value, what in ((socket, "socket path"), (socket_name, "socket name")):
        if value is not None:
            refuse_control_chars(value, what)
    if socket_name is not None and "/" in socket_name:
        raise StartupError(f"socket name {socket_name!r} contains '/'; use --socket for a path")
    return Settings(
        socket,
        socket_name,
        tmux_bin or env.get("LIBTMUX_TMUX_BIN") or None,
        env.get("LIBTMUX_TMUX_CONFIG") or None,
        source,
        *far,
    )


def resolve_binary(requested: str | None) -> str:
    """The tmux binary as an absolute path, resolved once at startup."""
    name = requested or "tmux"
    refuse_control_chars(name, "tmux binary")
    found = shutil.which(name)
    if found is None:
        raise StartupError(
            f"tmux binary {name!r} not found; install tmux >= 3.2a (apt-get install tmux) "
            "or point --tmux / LIBTMUX_TMUX_BIN at it"
        )
    return os.path.abspath(found)


def socket_for_name(name: str) -> str:
    """Where tmux puts a named socket: $TMUX_TMPDIR (or /tmp)/tmux-UID/NAME."""
    base = os.environ.get("TMUX_TMPDIR") or "/tmp"
    return os.path.join(base, f"tmux-{os.getuid()}", name)


async def check_version(tmux: Transport) -> str:
    """tmux older than 3.2a is refused with the reason and the remedy."""
    text = await tmux.version()
    if version_key(text) < FLOOR:
        raise StartupError(
            f"{tmux.binary} reports {text or 'no version'}; muxport needs tmux 3.2a or newer "
            "(older servers lack format modifiers and commands muxport uses; README, "
            "'tmux versions', says what fails on each). Install a newer tmux or point "
            "--tmux at one."
        )
    return text


async def connect(settings: Settings, start: bool = True) -> Connection:
    """Resolve the socket; on no selector, start (unless ``start`` is false) or join the daemon."""
    if settings.ssh is not None:
        tmux = await connect_far(settings.ssh, settings.ssh_options, settings.tmux_bin,
                                 settings.socket_path, settings.socket_name or DAEMON_NAME)
    else:
        binary = resolve_binary(settings.tmux_bin)
        path = settings.socket_path or socket_for_name(settings.socket_name or DAEMON_NAME)
        # A path join against the cwd, no filesystem access: nothing blocks here.
        tmux = Transport(binary, os.path.abspath(path))  # noqa: ASYNC240
    try:
        return await _served(settings, tmux, await check_version(tmux), start)
    except BaseException:  # refused, or cancelled by a signal (shielded: app.closed)
        with anyio.CancelScope(shield=True), anyio.move_on_after(SIGNAL_CLOSE):
            await tmux.aclose()  # a far host's master and private directory too
        raise


async def _served(settings: Settings, tmux: Transport, version: str, start: bool) -> Connection:
    selector = "socket_path" if settings.socket_path else "socket_name"
    if settings.socket_path or settings.socket_name:
        # One invocation both proves the server is there and reads its own version.
        probe = await tmux.run(("display-message", "-p", VERSION_PID), check=False)
        running = probe.returncode == 0 or "no current" in probe.stderr
        state: State = "existing" if running else "absent"
        return Connection(selector, settings.selector_source, tmux.socket_path, state,
                          "the server's own", version, tmux, known_version(tmux, probe))
    provenance = f"custom: {settings.tmux_config}" if settings.tmux_config else "muxport minimal"
    if start and not tmux.host.local:  # the daemon's configuration file is not there
        state = await start_far_daemon(tmux, settings.tmux_config)
    elif start:
        state = await start_daemon(tmux, settings.tmux_config or str(DAEMON_CONFIG))
    else:
        probe = await tmux.run(("show-options", "-sv", OWNER_OPTION), check=False)
        state = "existing" if probe.returncode == 0 else "absent"
    return Connection("dedicated", "default", tmux.socket_path, state, provenance, version, tmux,
                      await server_version(tmux))


VERSION_PID = "#{version} #{pid}"


async def server_version(tmux: Transport) -> str:
    """The running server's ``#{version}`` ("" with no server): tmux upgraded under a
    running server is still the old server, and its quirks are what count."""
    return known_version(tmux, await tmux.run(("display-message", "-p", VERSION_PID),
                                              check=False))


def known_version(tmux: Transport, found: TmuxResult) -> str:
    """Record what a ``display-message -p VERSION_PID`` answered: the server's version (the
    descriptor header is probed at the first control client, not at startup) and its
    process (a missing socket file then tells a moved socket from a dead server)."""
    version, pid = ([*found.stdout.split(), "", ""] if found.returncode == 0 else ["", ""])[:2]
    tmux.wire.server_version = version
    tmux.liveness.server_pid = int(pid) if pid.isdigit() else tmux.liveness.server_pid
    return version


async def start_daemon(tmux: Transport, config: str) -> State:
    """Start the dedicated daemon, or join the one running: ``created`` when this process
    made it (its owner marker is ours)."""
    nonce = secrets.token_hex(16)
    # tmux -S does not create the tmux-UID directory the way -L does; make it as tmux would.
    directory = os.path.dirname(tmux.socket_path)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise StartupError(
            f"cannot create the daemon's socket directory {directory} ({exc.strerror}); "
            "set TMUX_TMPDIR to a writable directory, or choose a server with --socket"
        ) from None
    # start-server is a no-op on a running server; -o keeps the first owner's marker.
    await tmux.start_server(config, ("set", "-s", "-o", OWNER_OPTION, nonce))
    return await _owner(tmux, nonce)


async def start_far_daemon(tmux: Transport, config: str | None) -> State:
    """``start_daemon`` on the far host: its socket directory was made by ``discover``, and
    muxport's minimal configuration is sent as commands (a ``config`` names a far file)."""
    nonce = secrets.token_hex(16)
    inline = [] if config else daemon_commands(str(DAEMON_CONFIG))
    await tmux.start_server(config or "/dev/null", *inline,
                            ("set", "-s", "-o", OWNER_OPTION, nonce))
    return await _owner(tmux, nonce)


async def _owner(tmux: Transport, nonce: str) -> State:
    owner = await tmux.run(("show-options", "-sv", OWNER_OPTION), check=False)
    if owner.returncode != 0:
        raise StartupError(
            f"could not start the dedicated daemon at {tmux.socket_path}: "
            f"{owner.stderr.strip() or 'tmux exited with ' + str(owner.returncode)}; "
            "check TMUX_TMPDIR or choose a server with --socket"
        )
    return "created" if owner.stdout.strip() == nonce else "existing"

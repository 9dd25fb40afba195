"""What ``muxport --http`` is told, checked before tmux is touched (docs/http.md): the
address, the bearer token, TLS, and the limits. The standard library only: a refused
start costs no import of the SDK."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import secrets
import socket
import ssl
import stat
from argparse import Namespace
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from muxport._internal.errors import StartupError
from muxport._internal.settings import _number

TOKEN_BYTES = 32  # 256 bits from secrets.token_urlsafe (the issue asks for at least 128)
MIN_TOKEN_CHARS = 22  # a configured token shorter than ~128 bits of base64 is refused
DEFAULT_MAX_SESSIONS = 64
DEFAULT_IDLE_SECONDS = 600.0


def state_dir(env: Mapping[str, str]) -> Path:
    """``$XDG_STATE_HOME/muxport``, or ``~/.local/state/muxport``."""
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "muxport"


def token_id(token: str) -> str:
    """What the audit log and the startup line may show of a token: never the token."""
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()[:12]


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (``[::1]:PORT`` for IPv6); host 127.0.0.1 by default."""
    host, sep, port = text.strip().rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535 or (sep and not host):
        raise StartupError(
            f"--http {text!r} is not [HOST:]PORT: give a port (8765), or a host and port "
            "(127.0.0.1:8765, [::1]:8765); port 0 picks a free one"
        )
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _private(path: Path, what: str) -> None:
    """Refuse a token file others can read or that is not a regular file (as ssh does)."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077:
        raise StartupError(
            f"{what} {path} is not a private regular file (mode {stat.S_IMODE(info.st_mode):o}):"
            f" others could read the token; run chmod 600 {path}"
        )


def read_token(path: Path) -> str:
    try:
        _private(path, "the token file")
        token = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise StartupError(
            f"the token file {path} cannot be read ({exc.strerror}); name a readable file "
            "with --http-token-file or MUXPORT_HTTP_TOKEN_FILE"
        ) from exc
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise StartupError(
            f"the token in {path} is too short or holds whitespace: use {MIN_TOKEN_CHARS} or "
            "more characters without spaces (e.g. python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(32))')"
        )
    return token


def created_token(path: Path) -> str:
    """The token in ``path``, made at random (0600, in a 0700 directory) if absent."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return read_token(path)
    except OSError as exc:
        raise StartupError(
            f"cannot create the token file {path} ({exc.strerror}); name one with "
            "--http-token-file or MUXPORT_HTTP_TOKEN_FILE"
        ) from exc
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(token + "\n")
    return token


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before tmux is touched: a port in use stops startup."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
        sock = socket.socket(infos[0][0], socket.SOCK_STREAM)
    except OSError as exc:
        raise StartupError(f"--http {host}:{port}: cannot resolve the host "
                           f"({exc}); give an address this machine has") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(infos[0][4])
        sock.listen(128)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise StartupError(
            f"--http {host}:{port}: cannot listen ({exc.strerror}); choose "
            "another port (0 picks a free one) or stop what holds it"
        ) from exc
    return sock


def check_tls(cert: str, key: str) -> None:
    """Load the pair as the server will: a wrong file stops startup, naming it."""
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise StartupError(f"--tls-cert {cert} / --tls-key {key} cannot be used ({exc}); "
                           "give a PEM certificate and its private key") from exc


@dataclass(frozen=True)
class HttpConfig:
    host: str
    port: int
    token: str
    token_file: Path
    tls: tuple[str, str] | None  # (cert, key)
    insecure: bool
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]
    max_sessions: int
    idle_seconds: float
    listener: socket.socket

    @property
    def token_id(self) -> str:
        return token_id(self.token)

    def exposure(self) -> str:
        """What the startup line says of the network exposure."""
        if self.tls is not None:
            return "TLS"
        if is_loopback(self.host):
            return "loopback only, plain HTTP"
        return "PLAIN HTTP OUTSIDE LOOPBACK (--http-insecure): the token crosses the network"

    def url(self, port: int) -> str:
        scheme = "https" if self.tls else "http"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{host}:{port}/mcp"


def http_config(
    env: Mapping[str, str], address: str, token_file: str | None, tls_cert: str | None,
    tls_key: str | None, insecure: bool, allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> HttpConfig:
    """Check everything ``--http`` needs; a refusal names the fix."""
    host, port = parse_address(address)
    if (tls_cert is None) != (tls_key is None):
        raise StartupError("--tls-cert and --tls-key go together: give both, or neither")
    tls = (tls_cert, tls_key) if tls_cert and tls_key else None
    if tls is not None:
        check_tls(*tls)
    if not is_loopback(host) and tls is None and not insecure:
        raise StartupError(
            f"--http {address}: binding outside loopback without TLS would send the token in "
            "clear; give --tls-cert and --tls-key, put a TLS reverse proxy in front and bind "
            "127.0.0.1, or say --http-insecure"
        )
    named = token_file or env.get("MUXPORT_HTTP_TOKEN_FILE") or None
    path = Path(named) if named else state_dir(env) / "http-token"
    token = read_token(path) if named else created_token(path)
    sessions = int(_number(env, "MUXPORT_HTTP_MAX_SESSIONS", DEFAULT_MAX_SESSIONS, 1, 10_000,
                           True))
    idle = _number(env, "MUXPORT_HTTP_IDLE_SECONDS", DEFAULT_IDLE_SECONDS, 5, 86_400)
    return HttpConfig(host, port, token, path, tls, insecure, tuple(allow_hosts),
                      tuple(allow_origins), sessions, idle, bind(host, port))


def from_args(args: Namespace, env: Mapping[str, str]) -> HttpConfig | None:
    """The launcher's ``--http`` options (None: serve stdio)."""
    address = args.http or env.get("MUXPORT_HTTP") or None
    if address is None:
        return None
    return http_config(env, address, args.http_token_file, args.tls_cert, args.tls_key,
                       args.http_insecure, args.http_allow_host, args.http_allow_origin)

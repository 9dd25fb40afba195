"""tmux's client protocol, the messages only: pure encoding and decoding of tmux 3.3a's
layouts (``tmux-protocol.h``, ``compat/imsg.h``); ``wireclient`` does the I/O.
docs/transport.md, "What one invocation is on the wire", walks through them.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator, Mapping

PROTOCOL_VERSION = 8  # tmux 3.2 to 3.5 speak it
HEADER = struct.Struct("=IHHII")  # type, len (with header), flags, peerid, pid
MAX_IMSGSIZE = 16384
IMSGF_HASFD = 1
INT = struct.Struct("=i")
PAIR = struct.Struct("=ii")  # msg_write_ready, msg_read_done: stream, error
WRITE_OPEN = struct.Struct("=iii")  # stream, fd, flags; then a path

# enum msgtype (tmux-protocol.h)
MSG_VERSION = 12
IDENTIFY_FLAGS, IDENTIFY_TERM, IDENTIFY_TTYNAME = 100, 101, 102
IDENTIFY_STDIN, IDENTIFY_ENVIRON, IDENTIFY_DONE = 104, 105, 106
IDENTIFY_CLIENTPID, IDENTIFY_CWD, IDENTIFY_FEATURES = 107, 108, 109
IDENTIFY_STDOUT, IDENTIFY_LONGFLAGS = 110, 111
MSG_COMMAND, MSG_DETACH, MSG_DETACHKILL, MSG_EXIT, MSG_EXITED = 200, 201, 202, 203, 204
MSG_EXITING, MSG_SHUTDOWN = 205, 210
MSG_READ_OPEN, MSG_READ_DONE = 300, 302
MSG_WRITE_OPEN, MSG_WRITE, MSG_WRITE_READY, MSG_WRITE_CLOSE = 303, 304, 305, 306

CLIENT_UTF8 = 0x10000
EBADF = 9


class VersionMismatch(Exception):
    """The server speaks another protocol version (it answered ``MSG_VERSION``)."""


class TooLong(Exception):
    """The command does not fit one message; the ``tmux`` binary refuses it the same way."""


def frame(kind: int, data: bytes = b"", *, has_fd: bool = False) -> bytes:
    """One imsg: the header (peerid carries the protocol version), then ``data``."""
    flags = IMSGF_HASFD if has_fd else 0
    header = HEADER.pack(kind, HEADER.size + len(data), flags, PROTOCOL_VERSION, os.getpid())
    return header + data


def cstring(value: str) -> bytes:
    return os.fsencode(value) + b"\0"


def client_flags(environ: Mapping[str, str]) -> int:
    """The flags ``tmux`` sends for a plain command: UTF-8 as its main() decides it."""
    if environ.get("TMUX") is not None:
        return CLIENT_UTF8
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = environ.get(name, "")
        if value:
            upper = value.upper()
            return CLIENT_UTF8 if "UTF-8" in upper or "UTF8" in upper else 0
    return 0


def identify_head(environ: Mapping[str, str], cwd: str) -> bytes:
    """The identify messages before the two file descriptors (client.c order)."""
    flags = client_flags(environ)
    return b"".join(
        (
            frame(IDENTIFY_FLAGS, INT.pack(flags)),
            frame(IDENTIFY_LONGFLAGS, struct.pack("=Q", flags)),
            frame(IDENTIFY_TERM, cstring(environ.get("TERM", ""))),
            frame(IDENTIFY_FEATURES, INT.pack(0)),
            frame(IDENTIFY_TTYNAME, b"\0"),  # stdin is not a terminal, as for the forked client
            frame(IDENTIFY_CWD, cstring(cwd)),
        )
    )


def identify_tail(environ: Mapping[str, str]) -> bytes:
    """The identify messages after the descriptors: pid, environment, done."""
    parts = [frame(IDENTIFY_CLIENTPID, INT.pack(os.getpid()))]
    for name, value in environ.items():
        item = cstring(f"{name}={value}")
        if len(item) <= MAX_IMSGSIZE - HEADER.size:  # tmux skips longer ones too
            parts.append(frame(IDENTIFY_ENVIRON, item))
    parts.append(frame(IDENTIFY_DONE))
    return b"".join(parts)


def command(args: list[str]) -> bytes:
    """``MSG_COMMAND``: argc, then every argument NUL-terminated."""
    packed = b"".join(cstring(arg) for arg in args)
    if len(packed) > MAX_IMSGSIZE - INT.size - HEADER.size:
        raise TooLong
    return frame(MSG_COMMAND, INT.pack(len(args)) + packed)


class Frames:
    """Splits received bytes into (type, data) messages."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, chunk: bytes) -> Iterator[tuple[int, bytes]]:
        self.buffer += chunk
        while len(self.buffer) >= HEADER.size:
            kind, length, _flags, peerid, _pid = HEADER.unpack_from(self.buffer)
            if length < HEADER.size:
                raise ConnectionError(f"bad imsg length {length}")
            if len(self.buffer) < length:
                return
            data, self.buffer = self.buffer[HEADER.size : length], self.buffer[length:]
            if kind == MSG_VERSION or peerid & 0xFF != PROTOCOL_VERSION:
                raise VersionMismatch(peerid & 0xFF)
            yield kind, data

"""tmux's client protocol, the messages only: pure encoding and decoding of the layouts
of ``tmux-protocol.h`` and ``compat/imsg.h``; ``wireclient`` does the I/O.
docs/transport.md, "What one invocation is on the wire", walks through them, and
"Two imsg headers" says why a message carrying a descriptor has two spellings.
"""

from __future__ import annotations

import enum
import os
import struct
from collections.abc import Iterator, Mapping

PROTOCOL_VERSION = 8  # tmux 3.2 to next-3.8 speak it
HEADER = struct.Struct("=IHHII")  # type, len (with header), flags, peerid, pid
HEADER32 = struct.Struct("=IIII")  # tmux >= 3.6: type, len (with header, FD_MARK), peerid, pid
MAX_IMSGSIZE = 16384
IMSGF_HASFD = 1  # tmux <= 3.5: bit 0 of the 16-bit flags after a 16-bit len
FD_MARK = 0x80000000  # tmux >= 3.6 (compat/imsg.c IMSG_FD_MARK): len is 32 bits, this its top
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

CLIENT_CONTROL, CLIENT_UTF8 = 0x2000, 0x10000
EBADF = 9


class VersionMismatch(Exception):
    """The server speaks another protocol version (it answered ``MSG_VERSION``)."""


class TooLong(Exception):
    """The command does not fit one message; the ``tmux`` binary refuses it the same way."""


class FdHeader(enum.Enum):
    """How a message says that a descriptor rides along: the server's imsg decides."""

    FLAGS = "IMSGF_HASFD"  # tmux <= 3.5: 16-bit len, then 16-bit flags
    MARK = "IMSG_FD_MARK"  # tmux >= 3.6: 32-bit len whose top bit is the mark


def frame(kind: int, data: bytes = b"", *, fd: FdHeader | None = None) -> bytes:
    """One imsg: the header (peerid carries the protocol version), then ``data``. Without
    a descriptor both headers are the same bytes (a len below 16 KiB, no flags)."""
    length = HEADER.size + len(data)
    if fd is FdHeader.MARK:
        return HEADER32.pack(kind, length | FD_MARK, PROTOCOL_VERSION, os.getpid()) + data
    flags = IMSGF_HASFD if fd is FdHeader.FLAGS else 0
    return HEADER.pack(kind, length, flags, PROTOCOL_VERSION, os.getpid()) + data


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


def identify_about(environ: Mapping[str, str], cwd: str) -> bytes:
    """The identify messages that describe the client, not its flags: terminal, cwd, pid,
    environment. No descriptor: a command client's stdin and stdout would be /dev/null,
    which the server closes at once (``tty_init`` fails), so sending none is the same."""
    parts = [
        frame(IDENTIFY_TERM, cstring(environ.get("TERM", ""))),
        frame(IDENTIFY_FEATURES, INT.pack(0)),
        frame(IDENTIFY_TTYNAME, b"\0"),  # stdin is not a terminal, as for the forked client
        frame(IDENTIFY_CWD, cstring(cwd)),
        frame(IDENTIFY_CLIENTPID, INT.pack(os.getpid())),
    ]
    for name, value in environ.items():
        item = cstring(f"{name}={value}")
        if len(item) <= MAX_IMSGSIZE - HEADER.size:  # tmux skips longer ones too
            parts.append(frame(IDENTIFY_ENVIRON, item))
    return b"".join(parts)


def identify_done(flags: int) -> bytes:
    """The flags and ``IDENTIFY_DONE``, to be sent in ONE write: the server then reads them
    in one go, so no client of ours is ever ``CLIENT_CONTROL`` without its control state
    (the crash of tmux before 3.7; docs/tmux-facts.md, "Control mode")."""
    return b"".join(
        (
            frame(IDENTIFY_FLAGS, INT.pack(flags)),
            frame(IDENTIFY_LONGFLAGS, struct.pack("=Q", flags)),
            frame(IDENTIFY_DONE),
        )
    )


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

"""The shell frame of ``run_shell_command`` (DESIGN §9): what is written, typed and read.

The command is never typed. It goes to a private 0600 file ``cmd`` in a private 0700
directory, beside the frame ``run``; the pane's shell is sent one short line that
sources the frame (`` \\. '/tmp/mxr-…/run'`` plus Enter). The frame, all of it inside a
subshell so that nothing it does outlives it:

1. turns off the pane shell's ``-e -u -x -v`` (and zsh's ``printexitvalue``) for its own
   lines, so that no trace or error text lands between the markers;
2. arms an EXIT trap (INT, TERM and HUP exit through it too) that writes the status to
   the private file ``status``, prints the end marker ``<nonce>:e:<status>`` and signals
   the run's private tmux ``wait-for`` channel;
3. prints the start marker ``<nonce>:s``;
4. sources ``cmd`` in an inner subshell with the traps reset and ``-e``/``-u``
   re-applied when the pane's shell had them, so ``cd``, ``export``, ``exit 3`` do not
   reach the pane.

The nonce (128 bits) is only in the files, never on the typed line, so the echo of the
typed line can never look like a marker, however the line editor wraps or redraws it.
Builtins are written ``\\name`` so aliases cannot replace them (functions named like
POSIX builtins are outside the supported boundary).

History: with ``suppress_history`` the typed line starts with a space (honoured by
bash ``HISTCONTROL=ignorespace|ignoreboth`` and zsh ``HIST_IGNORE_SPACE``); for bash,
which Debian-style rc files aside records it by default, the frame also deletes its
own history entry when (and only when) the newest entry is this run's line. zsh
without ``HIST_IGNORE_SPACE`` keeps the line; it is inert (it names a deleted file).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

POSIX_SHELLS = frozenset(
    {"sh", "ash", "bash", "dash", "ksh", "ksh93", "mksh", "pdksh", "zsh", "yash", "posh", "busybox"}
)
_SAFE_DIR = re.compile(r"^[A-Za-z0-9_./+-]+$")


def is_posix_shell(command: str) -> bool:
    """Whether a pane's foreground program (``pane_current_command``) is a POSIX shell."""
    name = command.strip().lstrip("-").rsplit("/", 1)[-1]
    return name in POSIX_SHELLS


def quote(value: str) -> str:
    """One POSIX single-quoted word."""
    return "'" + value.replace("'", "'\\''") + "'"


def _base_dir() -> str:
    base = tempfile.gettempdir()
    return base if _SAFE_DIR.match(base) and len(base) < 64 else "/tmp"


@dataclass(frozen=True)
class Frame:
    """One run's private files, markers and channel."""

    nonce: str
    channel: str
    directory: Path
    fish: bool = False  # fish panes: the frame runs under sh, the command under fish

    @property
    def start_marker(self) -> str:
        return f"{self.nonce}:s"

    @property
    def end_pattern(self) -> re.Pattern[str]:
        """The end marker, at the end of a line (after output that lacked a final newline)."""
        return re.compile(rf"^(.*){self.nonce}:e:([0-9]{{1,3}})$")

    @property
    def status_path(self) -> Path:
        return self.directory / "status"

    def typed_line(self, suppress_history: bool) -> str:
        """The only text typed at the pane's line editor (without the Enter)."""
        runner = "sh" if self.fish else "\\."
        line = f"{runner} {quote(str(self.directory / 'run'))}"
        return " " + line if suppress_history else line

    def read_status(self) -> int | None:
        """The exit status the frame wrote, or None when it wrote none (yet)."""
        try:
            text = self.status_path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() and int(text) < 256 else None

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


class Markers(Protocol):
    """What extract needs of a frame: the local one or the typed one (typed_frame.py)."""

    @property
    def start_marker(self) -> str: ...

    @property
    def end_pattern(self) -> re.Pattern[str]: ...


@dataclass(frozen=True)
class Extracted:
    """The command's lines found in a capture."""

    lines: list[str]
    started: bool  # the start marker is still in the pane
    ended: bool  # the end marker is in the pane
    status: int | None  # the status the end marker carries


def extract(frame: Markers, capture: list[str]) -> Extracted:
    """The lines strictly between the markers of ``frame`` in a joined (``-J``) capture.

    The start marker is the last line equal to it; the end marker the first later line
    ending with it (text before it is a last line printed without a newline). Without
    the start marker (the output outgrew the history, or the pane was cleared) every
    line the pane still holds before the end marker is returned. Without the end marker
    (still running) everything after the start is returned, trailing blank rows dropped.
    """
    rows = [row.rstrip() for row in capture]
    begin = 0
    started = False
    for index in range(len(rows) - 1, -1, -1):
        if rows[index] == frame.start_marker:
            begin, started = index + 1, True
            break
    pattern = frame.end_pattern
    for index in range(begin, len(rows)):
        match = pattern.match(rows[index])
        if match:
            tail = [match.group(1)] if match.group(1) else []
            return Extracted(rows[begin:index] + tail, started, True, int(match.group(2)))
    lines = rows[begin:]
    while lines and not lines[-1]:
        lines.pop()
    return Extracted(lines, started, False, None)


def _frame_text(frame: Frame, tmux_binary: str, socket_path: str, suppress_history: bool) -> str:
    d = str(frame.directory)
    forget = ""
    if suppress_history:
        # bash records space-led lines unless HISTCONTROL says otherwise: drop our own
        # entry, recognised by this run's unique directory name.
        forget = (
            "case ${BASH_VERSION-} in (?*) case $(\\history 1 2>/dev/null) in "
            f"(*{quote(frame.directory.name)}*) \\history -d $HISTCMD 2>/dev/null;; "
            "esac;; esac\n"
        )
    finish = (
        '_mxr=$?; \\trap "" INT TERM HUP; '
        '{ \\printf "%s\\n" "$_mxr" >|"$_mxd/status"; } 2>/dev/null; '
        f'\\printf "%s:e:%s\\n" {frame.nonce} "$_mxr"; '
        f'"$_mxt" -S "$_mxs" wait-for -S {frame.channel} </dev/null >/dev/null 2>&1; '
        "\\exit 0"
    )
    return (
        forget
        + "(\n"
        + "_mxf=$-\n"
        + "\\set +euxv\n"
        + "case ${ZSH_VERSION-} in (?*) \\unsetopt printexitvalue 2>/dev/null;; esac\n"
        + f"_mxd={quote(d)}; _mxt={quote(tmux_binary)}; _mxs={quote(socket_path)}\n"
        + f"\\trap {quote(finish)} EXIT\n"
        + "\\trap '\\exit 130' INT; \\trap '\\exit 143' TERM; \\trap '\\exit 129' HUP\n"
        + f"\\printf '%s\\n' {frame.start_marker}\n"
        + "(\n"
        + "\\trap - EXIT INT TERM HUP\n"
        + "case $_mxf in (*e*) \\set -e;; esac; case $_mxf in (*u*) \\set -u;; esac\n"
        + "\\unset _mxf _mxd _mxt _mxs\n"
        + (f"\\exec fish {quote(d + '/cmd')}\n" if frame.fish else f"\\. {quote(d + '/cmd')}\n")
        + ")\n"
        + ")\n"
    )


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def prepare(
    command: str, tmux_binary: str, socket_path: str, suppress_history: bool, fish: bool = False
) -> Frame:
    """Write the private directory (0700) with the command and the frame (0600 each)."""
    nonce = secrets.token_hex(16)
    directory = Path(tempfile.mkdtemp(prefix="mxr-", dir=_base_dir()))
    os.chmod(directory, 0o700)
    frame = Frame(nonce, f"muxport-run-{nonce}", directory, fish)
    try:
        body = command if command.endswith("\n") else command + "\n"
        _write_private(directory / "cmd", body)
        _write_private(
            directory / "run", _frame_text(frame, tmux_binary, socket_path, suppress_history)
        )
    except BaseException:
        frame.remove()
        raise
    return frame


def for_fish(frame: Frame, tmux_binary: str, socket_path: str) -> Frame:
    """The same run (nonce, channel, files) with the fish frame: sh runs it, fish the command.

    fish has no subshell: a child fish gives the same isolation (cd, set -x, exit).
    """
    fish = Frame(frame.nonce, frame.channel, frame.directory, fish=True)
    (frame.directory / "run").unlink()
    _write_private(frame.directory / "run", _frame_text(fish, tmux_binary, socket_path, False))
    return fish

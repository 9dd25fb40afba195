"""The local frame's private files (docs/runs-and-waits.md): what is written and typed.

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

import contextlib
import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from muxport_execute.frames.base import Extracted, Markers, extract, quote

_SAFE_DIR = re.compile(r"^[A-Za-z0-9_./+-]+$")


def base_dir() -> str:
    base = tempfile.gettempdir()
    return base if _SAFE_DIR.match(base) and len(base) < 64 else "/tmp"


@dataclass(frozen=True)
class Frame(Markers):
    """One run's private files, markers and channel."""

    channel: str
    directory: Path
    fish: bool = False  # fish panes: sh runs the frame, a child fish the command

    @property
    def status_path(self) -> Path:
        return self.directory / "status"

    def typed_line(self, suppress_history: bool) -> str:
        """The only text typed at the pane's line editor (without the Enter)."""
        runner = "sh" if self.fish else "\\."
        line = f"{runner} {quote(str(self.directory / 'run'))}"
        return " " + line if suppress_history else line

    @property
    def started_path(self) -> Path:
        return self.directory / "started"

    @property
    def token(self) -> str:
        return self.directory.name

    def has_ended(self) -> bool:
        return self.status_path.exists()

    def extract(self, capture: list[str]) -> Extracted:
        return extract(self, capture)

    def has_started(self) -> bool:
        """The frame began (it writes ``started`` before it prints the start marker)."""
        return self.started_path.exists() or self.status_path.exists()

    def cancel_start(self) -> bool:
        """Make a late start run nothing; True when the frame had not started, so the
        command never runs. The frame writes ``started`` before it reads ``cmd``: once
        ``cmd`` is renamed away, a frame that has not written ``started`` cannot run it."""
        cmd, parked = self.directory / "cmd", self.directory / "cmd.cancelled"
        try:
            os.rename(cmd, parked)
        except OSError:
            return not self.has_started()
        if self.has_started():
            with contextlib.suppress(OSError):
                os.rename(parked, cmd)
            return False
        return True

    def read_status(self) -> int | None:
        """The exit status the frame wrote, or None when it wrote none (yet)."""
        try:
            text = self.status_path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() and int(text) < 256 else None

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def _forget(frame: Frame) -> str:
    """bash records space-led lines unless HISTCONTROL says otherwise: drop our own entry,
    recognised by this run's unique directory name (runs in the pane's shell itself)."""
    return (
        "case ${BASH_VERSION-} in (?*) case $(\\history 1 2>/dev/null) in "
        f"(*{quote(frame.directory.name)}*) \\history -d $HISTCMD 2>/dev/null;; "
        "esac;; esac\n"
    )


def _run_text(frame: Frame, suppress_history: bool) -> str:
    """The file the typed line sources, in the pane's shell: (history) and one subshell.

    The subshell is the job the shell reports on C-z: its text is this one short line,
    never the frame's source (docs/run-outcomes.md).
    """
    forget = _forget(frame) if suppress_history else ""
    return forget + f"( \\. {quote(str(frame.directory / 'frame'))} )\n"


# The user's ERR/DEBUG traps (bash with set -E/-T, zsh's TRAPZERR/TRAPDEBUG and list
# traps, ksh) must fire for the command's lines only: the outer subshell saves them to
# a file and drops them for its own lines; the inner one, which runs the command,
# restores them as the first thing of ``cmd`` (so not even the source command of
# ``cmd`` is seen by a DEBUG trap; DEBUG is restored last). bash lists a parent's traps
# in a subshell, so it saves only those that were inherited (its $- shows E or T).
_SAVE_TRAPS = (
    "case ${BASH_VERSION-}:$_mxf in "
    "(?*:*[ET]*) \\trap -p ERR RETURN DEBUG >|\"$_mxd/traps\"; \\trap - ERR DEBUG RETURN;; "
    "(?*:*) ;; "
    "(*) case ${ZSH_VERSION-}${KSH_VERSION-} in (?*) \\trap >|\"$_mxd/traps\"; "
    "\\trap - ZERR 2>/dev/null; \\trap - ERR DEBUG 2>/dev/null;; esac;; "
    "esac 2>/dev/null\n"
)
# After C-c the status is the command's own (docs/run-outcomes.md): the outer subshell waits
# for the inner one whatever it does with SIGINT; bash decides like an interactive
# shell by itself; the others end the inner subshell when the interrupted command died
# of SIGINT (130; 258 in ksh93, which reports a signal N as 256+N) or no command
# handled it (0).
_INNER_INT = (
    "case ${BASH_VERSION-} in (?*) ;; "
    "(*) \\trap 'case $? in (0|130|258) \\exit 130;; esac' INT;; esac\n"
)


# ksh93 keeps job control on in a subshell: the inner subshell would get a process group
# of its own that never has the terminal (stopped by SIGTTIN when it reads, never reached
# by C-c or C-z). Off for the frame's own lines, the frame is one job (docs/run-outcomes.md).
_KSH_NO_JOBS = "case ${KSH_VERSION-} in (?*) \\set +m;; esac\n"


def _source(cmd: str) -> str:
    """The inner subshell's last line: source the command. A ksh93 subshell whose last
    command was killed by a signal kills itself with it, and the outer subshell then
    prints a job line naming the frame: there the inner subshell exits explicitly. Other
    shells run nothing after the command (a bash DEBUG trap restored by ``cmd`` would
    see it)."""
    return (
        f"case ${{KSH_VERSION-}} in (?*) \\. {quote(cmd)}; \\exit $?;; "
        f"(*) \\. {quote(cmd)};; esac\n"
    )


def _frame_text(frame: Frame, tmux_binary: str, socket_path: str) -> str:
    d = str(frame.directory)
    finish = (
        '_mxr=$?; \\trap "" INT TERM HUP QUIT; '
        '{ \\printf "%s\\n" "$_mxr" >|"$_mxd/status"; } 2>/dev/null; '
        f'\\printf "%s:e:%s\\n" {frame.nonce} "$_mxr"; '
        f'"$_mxt" -S "$_mxs" wait-for -S {frame.channel} </dev/null >/dev/null 2>&1; '
        "\\exit 0"
    )
    return (
        f"_mxf=$-; _mxd={quote(d)}\n"
        + _SAVE_TRAPS
        + "\\set +euxv\n"
        + "case ${ZSH_VERSION-} in (?*) \\unsetopt printexitvalue 2>/dev/null;; esac\n"
        + _KSH_NO_JOBS
        + f"_mxt={quote(tmux_binary)}; _mxs={quote(socket_path)}\n"
        # No started file (the run was given up as not started): run nothing.
        + '{ \\printf "" >|"$_mxd/started"; } 2>/dev/null || \\exit 0\n'
        + f"\\trap {quote(finish)} EXIT\n"
        + "\\trap : INT QUIT; \\trap '\\exit 143' TERM; \\trap '\\exit 129' HUP\n"
        + f"\\printf '\\033[J%s\\n' {frame.start_marker}\n"
        + "(\n"
        + "\\trap - EXIT INT TERM HUP QUIT\n"
        + _INNER_INT
        + "case $_mxf in (*e*) \\set -e;; esac; case $_mxf in (*u*) \\set -u;; esac\n"
        + "\\unset _mxf _mxd _mxt _mxs\n"
        + (f"\\exec fish {quote(d + '/cmd')}\n" if frame.fish else _source(d + "/cmd"))
        + ")\n"
    )


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def prepare(
    command: str, tmux_binary: str, socket_path: str, suppress_history: bool, fish: bool
) -> Frame:
    """Write the private directory (0700) with the command and the frame (0600 each).

    For fish, which has no subshell, sh runs the frame and a child fish the command
    (cd, set -x, exit end with it); the user's POSIX traps do not apply there, so
    ``cmd`` is the command alone."""
    nonce = secrets.token_hex(16)
    directory = Path(tempfile.mkdtemp(prefix="mxr-", dir=base_dir()))
    os.chmod(directory, 0o700)
    frame = Frame(nonce=nonce, channel=f"muxport-run-{nonce}", directory=directory, fish=fish)
    try:
        traps = quote(str(directory / "traps"))
        # On the command's first line, so that its line numbers stay the command's own.
        body = command if fish else f"if \\test -f {traps}; then \\. {traps}; fi; " + command
        body = body if body.endswith("\n") else body + "\n"
        _write_private(directory / "cmd", body)
        _write_private(directory / "frame", _frame_text(frame, tmux_binary, socket_path))
        _write_private(directory / "run", _run_text(frame, suppress_history))
    except BaseException:
        frame.remove()
        raise
    return frame

"""The local frame's private files (docs/runs-and-waits.md): what is written and typed.

The command is never typed. It goes to a private 0600 file ``cmd`` in a private 0700
directory named after the muxport process that owns it (host/owners.py), beside the
frame ``run``; the pane's shell is sent one short line that sources the frame
(`` \\. '/tmp/mxr-…/run'`` plus Enter). The text of the files is in frames/local_text.py.
The frame, all of it inside a subshell so that nothing it does outlives it:

1. turns off the pane shell's ``-e -u -x -v`` (and zsh's ``printexitvalue``) for its own
   lines, so that no trace or error text lands between the markers;
2. arms an EXIT trap (INT, TERM and HUP exit through it too) that writes the status to
   the private file ``status``, prints the end marker ``<nonce>:e:<status>`` and signals
   the run's private tmux ``wait-for`` channel;
3. prints the start marker ``<nonce>:s`` (concealed), over the typed line's row where
   the line fitted on it (``erase``, written right before typing: ``Frame.erase_echo``);
4. sources ``cmd`` in an inner subshell with the traps reset and ``-e``/``-u``
   re-applied when the pane's shell had them, so ``cd``, ``export``, ``exit 3`` do not
   reach the pane. ``cmd``'s first line writes ``read``: the shell has opened it, and
   the command text is removed (``Frame.drop_command``, from the run's follow).

``channel`` names the run's tmux socket and ``wait-for`` channel, so that a muxport
starting after this one was killed can wake the run's waiter (run/cleanup.py).

The nonce (128 bits) is only in the files, never on the typed line, so the echo of the
typed line can never look like a marker, however the line editor wraps or redraws it.
Builtins are written ``\\name`` so aliases cannot replace them (functions named like
POSIX builtins are outside the supported boundary).

History: with ``suppress_history`` the typed line starts with a space, and ``run``
first drops the line from the shell's history where the space did not keep it out
(frames/history.py; ``zsh-history`` is its zsh part).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from muxport_execute.frames import history
from muxport_execute.frames.base import extract, quote
from muxport_execute.frames.local_text import Layout, command_head, frame_text, run_text
from muxport_execute.frames.strategy import Extracted
from muxport_execute.host.owners import directory_prefix

CHANNEL = "channel"  # the run's tmux socket and wait-for channel, for a cleanup after a crash
# Every file a frame's directory may hold but the raw copy (docs/run-outcomes.md, "A run's files")
FILES = (CHANNEL, "cmd", "cmd.cancelled", "frame", "run", "zsh-history", "zsh-copy", "started",
         "read", "status", "traps")
_SAFE_DIR = re.compile(r"^[A-Za-z0-9_./+-]+$")
_FISH_JOB = re.compile(r"sh '(/[^'\u2026]{8,})\u2026")


def base_dir() -> str:
    base = tempfile.gettempdir()
    return base if _SAFE_DIR.match(base) and len(base) < 64 else "/tmp"


@dataclass(frozen=True)
class Frame(Layout):
    """One run's private files, markers and channel, and what they say."""

    @property
    def status_path(self) -> Path:
        return self.directory / "status"

    def typed_line(self, suppress_history: bool) -> str:
        """The only text typed at the pane's line editor (without the Enter)."""
        runner = "sh" if self.fish else "\\."
        line = f"{runner} {quote(str(self.directory / 'run'))}"
        return " " + line if suppress_history else line

    def erase_echo(self, fits: bool) -> None:
        """Before typing: tell the frame whether the typed line fits on the prompt's row,
        so that its row is the one above the frame's start (local_text.frame_text)."""
        if fits:
            _write_private(self.directory / "erase", "1\n")

    def is_job(self, row: str) -> bool:
        # the job the shell reports on C-z and fg is the run file's subshell, or under
        # fish the sh that sources it: its text names this directory (local_text.run_text)
        if self.directory.name in row:
            return True
        # fish cuts a job's text short: "Job 1, 'sh '/tmp/mxr-1.2.3-ab…' has stopped"
        cut = _FISH_JOB.search(row) if self.fish else None
        return cut is not None and str(self.directory / "run").startswith(cut[1])

    @property
    def frame_lines(self) -> tuple[str, ...]:
        # its echo, which a command's \e[H or scroll region may print over (frames/scrub.py)
        return (self.typed_line(False),)

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
        except OSError as exc:  # out of descriptors is not "no status": the caller looks again
            if exc.errno in (errno.EMFILE, errno.ENFILE):
                raise
            return None
        return int(text) if text.isdigit() and int(text) < 256 else None

    def drop_command(self) -> bool:
        """Remove the command text once the shell has opened ``cmd`` (it reads from what
        it opened); True when it is gone."""
        if not (self.directory / "read").exists():
            return False
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.directory / "cmd")
        return True

    def remove(self, *others: str) -> None:
        """Remove the directory: its files by name first (``others``: those this frame
        did not write itself, the raw copy), which needs no file descriptor, so a muxport
        out of them (EMFILE) still leaves nothing; only what is left then is listed."""
        for name in (*FILES, *others):
            with contextlib.suppress(OSError):
                os.unlink(self.directory / name)
        try:
            os.rmdir(self.directory)
        except FileNotFoundError:
            return
        except OSError:
            shutil.rmtree(self.directory, ignore_errors=True)



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
    # named after this process (host/owners.py): what a crash leaves can be told apart
    directory = Path(tempfile.mkdtemp(prefix=directory_prefix(), dir=base_dir()))
    os.chmod(directory, 0o700)
    frame = Frame(nonce=nonce, channel=f"muxport-run-{nonce}", directory=directory, fish=fish)
    try:
        _write_private(directory / CHANNEL, f"{socket_path}\n{frame.channel}\n")
        body = command_head(frame) + command
        _write_private(directory / "cmd", body if body.endswith("\n") else body + "\n")
        _write_private(directory / "frame", frame_text(frame, tmux_binary, socket_path))
        _write_private(directory / "run", run_text(directory, suppress_history))
        if suppress_history:
            _write_private(directory / "zsh-history", history.zsh_text(directory))
    except BaseException:
        frame.remove()
        raise
    return frame


def waiting_channel(directory: Path, socket_path: str) -> str | None:
    """The ``wait-for`` channel on ``socket_path``'s server that a run's waiter may still
    wait on: the run's frame never wrote its status, so it never signalled (None: it did,
    or the run was another server's)."""
    if (directory / "status").exists():
        return None
    try:
        served, channel = (directory / CHANNEL).read_text(encoding="utf-8").splitlines()[:2]
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return channel if served == socket_path and channel.startswith("muxport-run-") else None

"""The text of the local frame's private files (frames/local_files.py writes them).

The pane's shell sources ``run``, which runs ``frame`` in a subshell, which sources
``cmd`` (the command) in an inner subshell; docs/run-outcomes.md says why each line is
there. ``cmd``'s first line, before the command's own, records that the shell has opened
it (the file ``read``): from then on the path can go (the shell reads from what it
opened), so the local follow removes the command text at once (frames/local_follow.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from muxport_execute.frames import history
from muxport_execute.frames.base import Markers, quote
from muxport_execute.frames.fish import child_fish


@dataclass(frozen=True)
class Layout(Markers):
    """One run's private files, markers and channel."""

    channel: str
    directory: Path
    fish: bool = False  # fish panes: sh runs the frame, a child fish the command


def command_head(frame: Layout) -> str:
    """What ``cmd`` holds before the command, on the command's first line (so that its
    line numbers stay its own): record that the shell opened the file, then restore the
    user's traps (POSIX shells; fish runs the command alone)."""
    read = quote(str(frame.directory / "read"))
    if frame.fish:
        return f"true >{read} 2>/dev/null; "
    traps = quote(str(frame.directory / "traps"))
    return (
        f"{{ \\printf '' >|{read}; }} 2>/dev/null || \\:; "
        f"if \\test -f {traps}; then \\. {traps}; fi; "
    )


def run_text(directory: Path, suppress_history: bool) -> str:
    """The file the typed line sources, in the pane's shell: the history lines
    (frames/history.py) and one subshell.

    The subshell is the job the shell reports on C-z: its text is this one short line,
    never the frame's source (docs/run-outcomes.md).
    """
    forget = history.forget(directory) if suppress_history else ""
    return forget + f"( \\. {quote(str(directory / 'frame'))} )\n"


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
# of SIGINT (130; 258 in ksh93, which reports a signal N as 256+N), or when $? is 0 and
# no child was reaped since the start or the last C-c (a loop of builtins: the signal
# came while the shell itself ran). A child that handled SIGINT and exited 0 (a REPL
# left with exit()) was reaped in between: the list goes on, as in bash. Reaped children
# are read from the subshell's cminflt (/proc/self/stat, field 11: the minor faults of
# its waited-for children, which every exec'd program makes), by builtins only: no fork.
# Without /proc both reads are empty and equal: 130, as before (``|| :``: under set -e too).
_REAPED = (
    '_mxl=; { \\read -r _mxl </proc/self/stat; } 2>/dev/null || :; _mxl=${_mxl##*") "}; '
    + "_mxl=${_mxl#* }; " * 8 + "_mxl=${_mxl%% *}"
)
_INNER_INT = (
    "case ${BASH_VERSION-} in (?*) ;; "
    f"(*) {_REAPED}; _mxk=$_mxl; "
    f"\\trap 'case $? in (130|258) \\exit 130;; (0) {_REAPED}; "
    "case $_mxl in (\"$_mxk\") \\exit 130;; esac; _mxk=$_mxl;; esac' INT;; esac\n"
)


# zsh: no exit-status lines between the markers; and an interactive zsh's subshell that
# calls exit (the frame's EXIT trap, the command's own exit) saves the shell's history
# to HISTFILE, appending the person's unsaved lines once more per run: NO_RCS in the
# subshells keeps that save for the pane's shell (docs/runs-and-waits.md, "Shell history").
_ZSH_OPTIONS = "case ${ZSH_VERSION-} in (?*) \\unsetopt printexitvalue rcs 2>/dev/null;; esac\n"


# ksh93 keeps job control on in a subshell: the inner subshell would get a process group
# of its own that never has the terminal (stopped by SIGTTIN when it reads, never reached
# by C-c or C-z). Off for the frame's own lines, the frame is one job (docs/run-outcomes.md).
_KSH_NO_JOBS = "case ${KSH_VERSION-} in (?*) \\set +m;; esac\n"


# The markers are printed concealed (SGR 8): a person watching the pane sees a blank row
# where a capture reads the marker (tmux keeps the text, and shows it hidden). Revealed
# again after the newline, so the marker's line ends as pane/raw_bytes.py looks for it.
CONCEAL, REVEAL = "\\033[8m", "\\033[28m"


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


# The typed line's row, the prompt's row, is the one right above the frame's start where
# the line fitted on it (muxport wrote ``erase`` before typing, local_files.erase_echo;
# what the shell prints between, a trace of set -x or a preexec hook's line, is then
# the row erased, caused by this line too, and the typed line stays): the start marker
# is printed there instead, so a run leaves no visible row but its output (issue 29). The
# row is erased first (EL): an erase of the whole screen from its top left corner, as the
# marker's ED would be on the top row, moves what the screen holds into the history
# (tmux's scroll-on-clear), the typed line with it.
ERASE_ECHO = "if \\test -f \"$_mxd/erase\"; then \\printf '\\033[A\\r\\033[K'; fi\n"


def _fish(frame: Layout, d: str) -> str:
    """The inner subshell's last line in a fish pane: a child fish runs ``cmd``, its start
    marker printed again once the user's configuration has run (frames/fish.py)."""
    marker = f"printf '{CONCEAL}%s\\n{REVEAL}' {frame.start_marker}"
    return "\\" + child_fish(marker, quote(d + "/cmd")) + "\n"


def frame_text(frame: Layout, tmux_binary: str, socket_path: str) -> str:
    d = str(frame.directory)
    finish = (
        '_mxr=$?; \\trap "" INT TERM HUP QUIT; '
        '{ \\printf "%s\\n" "$_mxr" >|"$_mxd/status"; } 2>/dev/null; '
        f'\\printf "{CONCEAL}%s:e:%s\\n{REVEAL}" {frame.nonce} "$_mxr"; '
        f'"$_mxt" -S "$_mxs" wait-for -S {frame.channel} </dev/null >/dev/null 2>&1; '
        "\\exit 0"
    )
    return (
        f"_mxf=$-; _mxd={quote(d)}\n"
        + _SAVE_TRAPS
        + "\\set +euxv\n"
        + _ZSH_OPTIONS
        + _KSH_NO_JOBS
        + f"_mxt={quote(tmux_binary)}; _mxs={quote(socket_path)}\n"
        # No started file (the run was given up as not started): run nothing.
        + '{ \\printf "" >|"$_mxd/started"; } 2>/dev/null || \\exit 0\n'
        + f"\\trap {quote(finish)} EXIT\n"
        + "\\trap : INT QUIT; \\trap '\\exit 143' TERM; \\trap '\\exit 129' HUP\n"
        + ERASE_ECHO
        + f"\\printf '\\033[J{CONCEAL}%s\\n{REVEAL}' {frame.start_marker}\n"
        + "(\n"
        + "\\trap - EXIT INT TERM HUP QUIT\n"
        + _INNER_INT
        + "case $_mxf in (*e*) \\set -e;; esac; case $_mxf in (*u*) \\set -u;; esac\n"
        + "\\unset _mxf _mxd _mxt _mxs\n"
        + (_fish(frame, d) if frame.fish else _source(d + "/cmd"))
        + ")\n"
    )

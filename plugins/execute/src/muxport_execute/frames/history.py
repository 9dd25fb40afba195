"""Keeping a run's typed line out of the shell's history (docs/runs-and-waits.md,
"Shell history"): the first lines of the local frame's ``run``, which the pane's shell
sources itself, so they reach its history list.

The typed line starts with a space (bash ``HISTCONTROL=ignorespace``, zsh
``HIST_IGNORE_SPACE``, fish and mksh always). Where that option is off or the shell has
none, ``run`` removes the entry, and only when the newest entry holds this run's unique
directory name (a person's line is never touched):

- bash: ``history -d $HISTCMD``; bash writes its file from the list, so neither keeps it.
- yash: ``history -d -1``; yash appends a deletion record (``d<n>``) to its file, which
  every yash reading the file honours (the line's text stays in the file until yash
  rewrites it).
- ksh93: ``hist -p`` with no argument cancels the newest entry (as ``hist`` cancels its
  own line): ksh93 writes an undo record, honoured by every ksh93 reading the file (the
  text stays in the file until ksh93 trims it).
- zsh without ``HIST_IGNORE_SPACE``: zsh has no way to delete an entry, and it adds the
  line (and with ``INC_APPEND_HISTORY``/``SHARE_HISTORY`` writes it) before the line
  runs: the first such run puts a copy of the list without its line in the list's
  place, and adds a ``zshaddhistory`` hook that refuses muxport's typed run lines, so
  later runs never enter the list or the file (``_ZSH`` below).

dash (no line editor here) and busybox sh (built without a history file here) write no
file; busybox keeps the line in its in-memory list, which nothing can edit.

Every command ends in ``|| \\:``: the lines run in the user's shell, maybe under ``set -e``.
"""

from __future__ import annotations

from pathlib import Path

from muxport_execute.frames.base import quote

HOOK = "_muxport_no_history"  # the zsh hook's name (a function in the user's shell)

# The zsh part (zsh syntax: a file of its own for ``run``, which the other shells parse;
# evaluated only in zsh by a typed frame). With HIST_IGNORE_SPACE the space did it.
# Otherwise, when the newest entry is this run's line: add the hook (once per shell; it
# refuses the lines of local runs, `` \. '<dir>/mxr-…/run'``, and of typed frames and
# their probes, `` : /;…``, so later runs never enter the list), then, with the line
# left out (HISTORY_IGNORE): write what zsh would write at exit now (APPEND_HISTORY), or
# rewrite the file from itself (INC_APPEND_HISTORY and SHARE_HISTORY wrote the line
# already); copy the list to a private file (COPY: the run's own, or a typed frame's
# ``=(:)``, a 0600 file zsh removes when the copy is done), read it back behind the
# list, and keep only the copy (HISTSIZE drops the oldest entries first). Event numbers
# move on by the list's length, once. A list that held only this line (a zsh with no
# history yet, whose first line is a run) leaves an empty copy, and reading nothing back
# would keep the line, which zsh then writes at exit: the copy holds one empty entry then,
# read from a file, so never written by an appending zsh (a blank entry in the list).
_ZSH = """() {
setopt localoptions extendedhistory unset noxtrace noverbose noerrexit noerrreturn \\
  nohistexpiredupsfirst
[[ -o histignorespace ]] && return 0
# in place before this line was read: the hook refused it (it lingers, as space-led
# lines do, until the next line; a copy now would lose an entry with it)
(( ${${zshaddhistory_functions-}[(Ie)HOOK]} )) && return 0
HOOK() { case $1 in (' \\. '\\''/'*'/mxr-'*'/run'\\'*|' : /;'*) return 1;; esac; return 0; }
zshaddhistory_functions+=(HOOK)
local mine=TOKEN n=$HISTSIZE
[[ ${history[$HISTCMD]-} == *${(b)mine}* ]] || return 0
local HISTORY_IGNORE="(${HISTORY_IGNORE:+$HISTORY_IGNORE|}*${(b)mine}*)"
if [[ -n ${HISTFILE-} ]] && (( ${SAVEHIST:-0} > 0 )); then
  if [[ -o incappendhistory || -o sharehistory ]]; then
    fc -p "$HISTFILE" "$SAVEHIST" "$SAVEHIST" && { fc -W; fc -P; }
  elif [[ -o appendhistory || -o incappendhistorytime ]]; then
    fc -AI
  fi
fi
local SAVEHIST=$HISTSIZE
() {
  local k
  fc -W "$1" || return 0
  [[ -s $1 ]] || print >|"$1" || return 0
  k=$HISTCMD; HISTSIZE=$(( 2 * n + 2 ))
  fc -R "$1"
  (( HISTCMD > k )) && HISTSIZE=$(( HISTCMD - k ))
  HISTSIZE=$n
} COPY
}
"""


def _zsh(token: str, copy: str) -> str:
    return _ZSH.replace("HOOK", HOOK).replace("TOKEN", token).replace("COPY", copy)


def zsh_text(directory: Path) -> str:
    """The zsh part, sourced from ``run`` (its file is ``zsh-history``)."""
    return _zsh(quote(directory.name), quote(str(directory / "zsh-copy")))


def zsh_typed(half: str) -> str:
    """The zsh part for a typed frame, whose line and probe hold ``half`` (hex digits),
    without its comments (typed characters are few)."""
    text = _zsh(half, "=(:)")
    return "".join(row for row in text.splitlines(keepends=True) if not row.startswith("#"))


def forget(directory: Path) -> str:
    """The lines that drop this run's entry from the shell's history list."""
    mine = f"(*{quote(directory.name)}*)"
    return (
        "case ${BASH_VERSION-} in (?*) case $(\\history 1 2>/dev/null) in "
        f"{mine} \\history -d $HISTCMD 2>/dev/null || \\:;; esac;; esac\n"
        "case ${YASH_VERSION-} in (?*) case $(\\fc -ln -1 2>/dev/null) in "
        f"{mine} \\history -d -1 2>/dev/null || \\:;; esac;; esac\n"
        # mksh (also KSH_VERSION) never records a space-led line and has no hist
        "case ${KSH_VERSION-} in (*MIRBSD*) ;; (?*) case $(\\hist -ln -0 2>/dev/null) in "
        f"{mine} \\hist -p 2>/dev/null || \\:;; esac;; esac\n"
        "case ${ZSH_VERSION-} in (?*) "
        f"\\. {quote(str(directory / 'zsh-history'))} 2>/dev/null || \\:;; esac\n"
    )

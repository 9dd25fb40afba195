"""What muxport's own runs leave in a pane (issue 29; docs/answers.md, "Plumbing"): the
rows no read answers with, recognised by their shape alone, so that the rows of an earlier
muxport's runs on the same server go too.

A run of the execute toolset (docs/run-outcomes.md) leaves, per run:

- its typed line: `` \\. '/tmp/mxr-<owner>-<random>/run'`` (fish: ``sh '…/run'``) after the
  prompt, or a typed frame's `` : /;eval "$(printf '…')"``, ``: /;sh -c (printf '…' | string
  collect)``, its buffer fetch and its probe ``: /;printf '%s%s:p:%s:%s\\n' H1 H2 …``, each
  carrying a 16-digit half of the run's nonce (a capture of the screen alone may begin in
  the middle of such a line: its end, the encoded newline and ``')"``, is as rare);
- its markers, 32 hex digits (the nonce) then ``:s``, ``:e:N``, ``:x:N`` or ``:p:…``, at the
  end of a row (the end marker after a last line the command printed without a newline);
- on C-z and ``fg``, the shell's job lines, which quote the private path or, for a typed
  frame, its program (``printf '%s%s:e:%s\\n' H1 H2``).

Each shape is anchored where the frame puts it (a marker ends its row; a private path is
quoted and has the directory name's exact form; a typed frame's line starts with ``: /;``
and holds a nonce's half), so output of a person or a command is never taken for one: a
hash, a UUID or a git id is never followed by a marker's tail at a row's end, and text
that quotes muxport's docs has ``…`` where a path's random part would be.
"""

from __future__ import annotations

import re

# the private directory (frames/local_files.py, host/owners.py), quoted: the typed line and
# the job lines of a stopped run; fish cuts a job's text short with "…"
_PRIVATE = re.compile(
    r"'/[A-Za-z0-9_./+-]*?/mxr-(?:[0-9]{1,10}\.[0-9]{1,20}\.[0-9a-f]{8}-)?[a-z0-9_]{8}"
    r"/(?:run|frame)'|'sh '/[A-Za-z0-9_./+-]*mxr-[A-Za-z0-9_.-]*\u2026"
)
# a typed frame's typed line (frames/typed_text.py, typed_buffer.py), with a nonce's half
_TYPED = re.compile(r"(?:^|\s): /;(?:eval \"\$\(|sh -c \(|printf ').*\b[0-9a-f]{16}\b")
# the end of a typed frame's typed line (its program's last newline, encoded, and the
# quote and parenthesis that close it): what a capture of the screen alone holds of a
# typed line that began above the screen
_TYPED_END = re.compile(r"\\012'(?:\)\"| \| string collect\))$")
# a typed frame's program quoted by a job line (or a trace): its markers' printf
_PROGRAM = re.compile(r"%s%s:[sexp].{0,8}\s[0-9a-f]{16} [0-9a-f]{16}\b")
# a marker at the end of a row, after what the command printed on it without a newline
_MARKER = re.compile(r"[0-9a-f]{32}:(?:s|[ex]:[0-9]{1,3}|p:[^\s:]*:\S*)$")


def without_plumbing(row: str) -> str | None:
    """``row`` as a read shows it: None when the row is a run's plumbing (a typed line, a
    marker, a job line naming a run's frame), the row without the end marker that follows
    a command's last line on it, or the row itself."""
    text = row.rstrip()
    if "mxr-" in text and _PRIVATE.search(text):
        return None
    if ": /;" in text and _TYPED.search(text):
        return None
    if text.endswith(('"', ")")) and _TYPED_END.search(text):
        return None
    if "%s%s:" in text and _PROGRAM.search(text):
        return None
    if ":" in text and (marker := _MARKER.search(text)):
        kept = text[: marker.start()]
        return kept if kept.strip() else None
    return row

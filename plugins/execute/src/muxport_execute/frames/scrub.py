"""No marker text in a run's answer (issue 19): what ``scrub`` removes from the lines an
answer shows (output, pane_lines, prompt), whatever the command did to the screen.

A command that moves the cursor (``\\e[H``, a scroll region, cursor up) prints over the
frame's rows: the start marker, the typed line, or the end marker then share a row with
the command's text. The screen keeps no boundary between them, so the frame's part is
told by its text and its column: a marker is printed at column 0, so text printed over
its start leaves its end (``in-region-2`` + the nonce's tail + ``:s``), and a marker
printed over a longer row leaves that row's tail after it. What is removed:

- the nonce, whole or as a run of at least ``MIN_PIECE`` of its hex digits, with the
  marker's tail after it (``:s``, ``:e:N``, ``:x:N``, ``:p:...``); fewer digits cannot be
  told from a command's own hex (1 in 16**8 per place);
- at a row's end, the nonce's last digits (at least ``MIN_TAIL``) with a marker's tail:
  the end of a marker the command's text covered; fewer could be the command's own;
- at a row's end, the tail of one of the frame's own lines (the typed line: its private
  path), at least ``MIN_LINE`` characters of it.

The command's text around it stays. Limit: where the last character the command printed
over a marker is a hex digit equal to the nonce's digit in that column (1 in 16), the
screen cannot tell whose it is, and it goes with the marker.
"""

from __future__ import annotations

import re

MIN_PIECE = 8
MIN_TAIL = 3
MIN_LINE = 6
# what follows the nonce in a marker (frames/local_text.py, frames/typed_text.py)
_TAIL = r"(?::s|:[ex]:[0-9]{1,3}|:p:\S*)?"
_TAIL_AT = re.compile(_TAIL)
_HEX_RUN = re.compile(rf"[0-9a-f]{{{MIN_PIECE},}}")
_ENDING = re.compile(r"([0-9a-f]+)(:s|:[ex]:[0-9]{1,3})$")


def _longest_piece(run: str, nonce: str) -> tuple[int, int]:
    """The longest substring of ``run`` that is also one of ``nonce``: (start, length)."""
    best = (0, 0)
    for start in range(len(run)):
        length = best[1] + 1
        while start + length <= len(run) and run[start:start + length] in nonce:
            best = (start, length)
            length += 1
    return best


def _pieces(row: str, nonce: str) -> str:
    """``row`` without the runs of the nonce's digits it holds, with their marker's tail."""
    out, at = [], 0
    for hexes in _HEX_RUN.finditer(row):
        start, length = _longest_piece(hexes.group(), nonce)
        if length < MIN_PIECE:
            continue
        begin = hexes.start() + start
        tail = _TAIL_AT.match(row, begin + length)
        out.append(row[at:begin])
        at = tail.end() if tail else begin + length
    return "".join(out) + row[at:]


def _common_suffix(row: str, text: str) -> int:
    n = 0
    while n < min(len(row), len(text)) and row[-1 - n] == text[-1 - n]:
        n += 1
    return n


def scrub_row(row: str, nonce: str, lines: tuple[str, ...] = ()) -> str:
    """One row without any text of the run's markers or of its frame ``lines``."""
    if nonce in row:
        row = re.sub(re.escape(nonce) + _TAIL, "", row)
    row = _pieces(row, nonce)
    ending = _ENDING.search(row)
    if ending is not None:
        kept = _common_suffix(ending.group(1), nonce)
        if kept >= MIN_TAIL:
            row = row[: ending.start(1) + len(ending.group(1)) - kept]
    for line in lines:
        cut = _common_suffix(row, line)
        if cut >= MIN_LINE:
            row = row[: len(row) - cut]
    return row


def scrub(rows: list[str], nonce: str, lines: tuple[str, ...] = ()) -> list[str]:
    """``rows`` (an answer's output, pane_lines or prompt) without any marker text; rows
    that held nothing else are dropped, rows with the command's text keep it."""
    out = []
    for row in rows:
        clean = scrub_row(row, nonce, lines)
        if clean == row or clean.strip():
            out.append(clean.rstrip() if clean != row else row)
    return out

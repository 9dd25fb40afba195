"""Why a typed line did not start its frame, from what the pane shows (docs/run-outcomes.md).

Called once the frame can no longer run the command (``local_files.Frame.cancel_start``), so the
answer ``not_started`` is true whatever the pane does later.
"""

from __future__ import annotations

from muxport import Tmux

from muxport_execute.frames.strategy import Ending
from muxport_execute.notes import clear_line
from muxport_execute.pane.line_state import judge
from muxport_execute.pane.view import read_line

SHOWN_ROWS = 6
UNREADABLE = ("Permission denied", "No such file", "can't open", "cannot open", "not found")


async def not_started(
    tmux: Tmux, pane_id: str, token: str, shell: str, bound: float | None
) -> Ending:
    """``bound``: the start bound that ran out; None: the shell was seen to take the typed
    line without running it (``shell_reads.took_line``)."""
    line = await read_line(tmux, pane_id)
    out = await tmux.run(("capture-pane", "-p", "-J", "-t", pane_id))
    rows = [row.rstrip() for row in out.lines]
    while rows and not rows[-1]:
        rows.pop()
    shown = [row for row in rows if row][-SHOWN_ROWS:]
    typed = [i for i, row in enumerate(rows) if token in row]
    after = rows[typed[0] + 1 :] if typed else []
    verdict = judge(line, shell)
    if any(word in row for row in after for word in UNREADABLE):
        reason = "unreadable"
        why = (
            "the pane's shell could not read muxport's private files (it runs as another user "
            "or elsewhere: su, sudo, ssh, a container); send_keys types into it"
        )
        recovery = "the pane is at its prompt again; use send_keys there"
    elif verdict == "reading":
        reason, recovery = "not_at_prompt", clear_line(pane_id)
        why = "the shell was reading input (a pending read), which took the typed line"
    elif verdict == "continuation":
        reason, recovery = "not_at_prompt", clear_line(pane_id)
        why = (
            "the shell shows a continuation prompt (an open quote, heredoc or unfinished "
            "command), which the typed line joined"
        )
    else:
        reason, recovery = "not_at_prompt", clear_line(pane_id)
        why = (
            "the shell did not run the typed line (vi command mode, a pending read that "
            "took it as data, text already on the line, or a shell that ignored it)"
        )
    when = f"did not start within {bound:g} s" if bound is not None else (
        "did not start: the shell read the typed line without running it"
    )
    note = f"the command {when} and will not run: {why}; {recovery}"
    return Ending("not_started", note=note, reason=reason, pane_lines=shown)

"""Raw plumbing rows per run (issue 29): what a person watching the pane sees of muxport's
bookkeeping. For each shell, the rows a run of ``echo out`` adds to the pane (the absolute
row of the cursor, ``history_size + cursor_y``, before and after; a raw ``capture-pane``
counts the same rows) beside the same command typed by hand (its echo and its output), and
what the reads answer (``hidden_rows`` of ``capture_pane``). Plumbing is the typed line's
rows (the echo the seeds accept) plus every row beyond a hand-typed run's. muxport only.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import Any

from muxport.testing import eventually, reach
from muxport.testing.server import ShellPane, TmuxServer

from bench.harness import HEIGHT, WIDTH, Row, connect, data_of, text_of
from bench.measure_reach import fifo_dir

RUNS = 10
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def visible(row: str, hidden: bool) -> tuple[str, bool]:
    """A row of ``capture-pane -e`` as a person sees it (without what is concealed, SGR 8),
    and whether the row ends concealed: ``-e`` prints only changes, so a row begins in the
    state the row before it ended in."""
    out, at = [], 0
    for sgr in SGR.finditer(row):
        if not hidden:
            out.append(row[at : sgr.start()])
        codes = set(sgr.group(1).split(";"))
        hidden = "8" in codes or (hidden and not {"", "0", "28"} & codes)
        at = sgr.end()
    if not hidden:
        out.append(row[at:])
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", "".join(out)), hidden


def concealed(box: TmuxServer, pane: str) -> int:
    """Rows of the pane whose text a person does not see (all of it concealed: a marker)."""
    rows = box.cmd("capture-pane", "-p", "-e", "-t", pane, "-S", "-").split("\n")
    plain = box.cmd("capture-pane", "-p", "-t", pane, "-S", "-").split("\n")
    count, hidden = 0, False
    for row, text in zip(rows, plain, strict=False):
        seen, hidden = visible(row, hidden)
        count += text.strip() != "" and seen.strip() == ""
    return count


def cursor_row(box: TmuxServer, pane: str) -> int:
    shown = box.cmd("display-message", "-p", "-t", pane, "#{history_size} #{cursor_y}")
    history, y = shown.split()
    return int(history) + int(y)


def prompt_last(pane: ShellPane) -> bool:
    """The pane's last non-blank row is a prompt again (the next command may be typed)."""
    return [row for row in pane.screen() if row.strip()][-1].rstrip().endswith("$")


async def by_hand(box: TmuxServer, pane: ShellPane) -> float:
    """Rows a hand-typed ``echo out`` adds, per run."""
    before = cursor_row(box, pane.pane_id)
    for n in range(RUNS):
        pane.type(f"echo hand-{n}")
        await eventually(lambda n=n: sum(line == f"hand-{n}" for line in
                                         pane.screen(history=True)) == 1, within=10)
        await eventually(lambda: prompt_last(pane), within=10)
    return (cursor_row(box, pane.pane_id) - before) / RUNS


async def by_muxport(box: TmuxServer, pane: str, session: Any) -> tuple[float, int, float]:
    """Rows a run of ``echo out`` adds, per run, the rows a capture then leaves out, and the
    rows a person does not see (concealed), per run."""
    before = cursor_row(box, pane)
    for n in range(RUNS):
        result = await session.call("run_shell_command",
                                    {"pane_id": pane, "command": f"echo out-{n}", "timeout": 30})
        if result.is_error or data_of(result).get("exit_status") != 0:
            raise RuntimeError(f"run in {pane} failed: {text_of(result)[:200]}")
    rows = (cursor_row(box, pane) - before) / RUNS
    capture = data_of(await session.call("capture_pane", {"pane_id": pane, "history": True,
                                                          "max_lines": 5000}))
    return rows, int(capture.get("hidden_rows", 0)), concealed(box, pane) / RUNS


def row(name: str, frame: str, hand: float, got: tuple[float, int, float]) -> Row:
    muxport, hidden, dark = got
    plumbing = muxport - hand + 1  # the typed line's row counts: a hand-typed echo is 1 row
    seen = plumbing - dark
    return Row(
        f"raw plumbing rows per run, {name} ({frame} frame; `echo out`, {RUNS} runs)",
        f"{plumbing:g} rows ({muxport:g} a run; {seen:g} with text a person sees)",
        f"typed by hand: {hand:g} a run",
        "",
        "≤ 1 row a person sees (the echo of one line)",
        "yes" if seen <= 1 else "no",
        {"rows_per_run": muxport, "by_hand": hand, "hidden_rows_in_capture": hidden,
         "concealed_rows_per_run": dark, "runs": RUNS},
    )


async def measure() -> list[Row]:
    rows: list[Row] = []
    box = TmuxServer()
    try:
        panes = {"bash": box.shell_pane("bash", WIDTH, HEIGHT),
                 "zsh": box.shell_pane("zsh", WIDTH, HEIGHT)}
        hands = {name: box.shell_pane(name, WIDTH, HEIGHT) for name in panes}
        if shutil.which("fish"):
            panes["fish"] = reach.fish_pane(box, WIDTH)
            hands["fish"] = reach.fish_pane(box, WIDTH)
        async with connect("muxport", box) as session:
            for name, pane in panes.items():
                hand = await by_hand(box, hands[name])
                got = await by_muxport(box, pane.pane_id, session)
                rows.append(row(name, "local", hand, got))
    finally:
        box.kill()
    rows += await typed()
    return rows


async def typed() -> list[Row]:
    """The typed frame: a bash behind ssh to 127.0.0.1 (needs root, as the tests)."""
    if os.geteuid() != 0 or shutil.which("/usr/sbin/sshd") is None:
        return [Row("raw plumbing rows per run, ssh (typed frame)",
                    "skipped: needs root and openssh-server", "-")]
    box = TmuxServer()
    user = reach.make_user("/bin/bash")
    sshd = reach.start_sshd([user.name])
    fifos = fifo_dir()
    try:
        pane = reach.ssh_pane(box, sshd, user, fifos, width=WIDTH)
        hand_pane = reach.ssh_pane(box, sshd, user, fifos, width=WIDTH)
        hand = await by_hand(box, hand_pane)
        async with connect("muxport", box) as session:
            got = await by_muxport(box, pane.pane_id, session)
    finally:
        box.kill()
        sshd.stop()
        reach.remove_user(user)
        shutil.rmtree(fifos, ignore_errors=True)
    return [row("bash over ssh", "typed", hand, got)]

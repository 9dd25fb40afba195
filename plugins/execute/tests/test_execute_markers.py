"""No marker text in a run's answer, whatever the command did to the screen (issue 19):
a scroll region or a cursor sent home makes the command print over the frame's rows (its
start marker, its typed line, its end marker); the answer keeps the command's text and
none of the frame's (frames/scrub.py)."""

from __future__ import annotations

import re

import pytest
from execute_kit import call, run
from muxport_execute.frames.base import Markers
from muxport_execute.frames.local_files import Frame
from muxport_execute.frames.scrub import scrub
from muxport_execute.frames.strategy import Ending
from muxport_execute.run.driver import scrubbed

pytestmark = pytest.mark.timeout(60)

NONCE = "6a2a99dbf4bf1e032e9a9c0ba4f3835d"
# Any trace of a frame: hex digits in a row (the nonce's), a marker's tail, the private path.
TRACE = re.compile(r"[0-9a-f]{6,}|:s$|:[ex]:[0-9]+|mxr-|/run'|/cmd|/frame")

# Commands that print over the frame's rows: a scroll region at the screen's top (zsh's
# report), and the cursor sent home, then printing (fish's report). Their rows end in a
# character that is no hex digit: a digit the nonce holds in the same column cannot be
# told from the command's own (frames/scrub.py, 1 in 16), and the test must not flake.
POSIX = {
    "region": "printf '\\033[1;5r'; for i in 1 2 3 4 5 6 7; do echo in-region-$i.; done",
    "home": "printf 'a\\nb\\n\\033[H'; echo top-1.; echo top-2.",
}
FISH = {
    "region": "printf '\\e[1;5r'; for i in (seq 7); echo in-region-$i.; end",
    "home": "printf 'a\\nb\\n\\e[H'; echo top-1.; echo top-2.",
}
WORDS = {"region": re.compile(r"in-region-[1-7]\."), "home": re.compile(r"a|b|top-[12]\.")}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
@pytest.mark.parametrize("case", ["region", "home"])
@pytest.mark.parametrize("before", ["fresh", "used"])
async def test_no_marker_text_after_the_screen_was_printed_over(
    stdio_client, shell_pane, fish_pane, shell, case, before
):
    pane = fish_pane() if shell == "fish" else shell_pane(shell)
    command = (FISH if shell == "fish" else POSIX)[case]
    async with stdio_client(toolsets=["execute"]) as client:
        if before == "used":  # the frame's rows are then in the middle of the screen
            assert (await run(client, pane.pane_id, "seq 30"))["exit_status"] == 0
        done = await run(client, pane.pane_id, command)
        assert (done["outcome"], done["exit_status"]) == ("completed", 0), done
        assert done["framed"] is False and done["note"], done  # it says lines may be missing
        traces = [line for line in done["output"] if TRACE.search(line)]
        assert traces == [], done["output"]
        # the command's text stays, also where a marker was glued to it: whole lines (a used
        # pane: with the start marker printed over, the lines the pane holds before the end
        # marker, which may be the last run's seq, whose end marker was printed over too)
        words = WORDS[case] if before == "fresh" else re.compile(WORDS[case].pattern + r"|\d+")
        assert all(words.fullmatch(line) for line in done["output"] if line), done["output"]
        if case == "region" and before == "fresh":
            assert "in-region-7." in done["output"], done
        # the next runs see a clean screen again: only their own output
        await run(client, pane.pane_id, "printf '\\033[r'; clear")
        assert (await run(client, pane.pane_id, "echo after"))["output"] == ["after"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
async def test_runs_printed_over_leave_no_piece_for_the_next_run(
    stdio_client, rc_pane, fish_pane, shell
):
    # zsh's report: the same command again, PROMPT_SP on (zsh's default). Each run prints
    # over the rows the last one left, pieces of its markers and typed line among them:
    # pieces of another run's, which no scrub of this run's nonce removes.
    pane = fish_pane() if shell == "fish" else rc_pane(shell, "setopt PROMPT_SP" * (shell == "zsh"))
    command = (FISH if shell == "fish" else POSIX)["region"]
    async with stdio_client(toolsets=["execute"]) as client:
        for _ in range(3):
            done = await run(client, pane.pane_id, command)
            assert (done["outcome"], done["exit_status"]) == ("completed", 0), done
            assert [line for line in done["output"] if TRACE.search(line)] == [], done["output"]
            assert all(WORDS["region"].fullmatch(line) for line in done["output"] if line), (
                done["output"])


def test_scrub_keeps_the_text_a_marker_was_glued_to(tmp_path):
    frame = Frame(nonce=NONCE, channel="c", directory=tmp_path / "mxr-1.2.3-abcdefgh")
    typed = "$ " + frame.typed_line(True)
    rows = [
        "in-region-1" + typed[11:],  # the typed line, printed over
        "in-region-2" + f"{NONCE}:s"[11:],  # the start marker, printed over
        f"in-region-3{NONCE}:e:0",  # the end marker glued after a last line
        f"{NONCE}:e:0" + typed[36:],  # the end marker printed over the typed line
        f"{NONCE[:20]}tail",  # the marker's start, its end printed over
        f"{NONCE}:s",
        "0:e:0",  # too short to be told from a command's own text: kept
        "deadbeefcafe:s",  # hex of the command's own
    ]
    assert frame.scrub(rows) == [
        "in-region-1", "in-region-2", "in-region-3", "tail", "0:e:0", "deadbeefcafe:s",
    ]
    assert scrub(["plain", ""], NONCE) == ["plain", ""]  # rows without a trace stay as they are


def test_every_line_of_an_ending_is_scrubbed(tmp_path):
    frame = Markers(NONCE)

    class Strategy:  # the driver needs only scrub from the frame here
        def scrub(self, rows: list[str]) -> list[str]:
            return frame.scrub(rows)

    ending = Ending("not_started", output=[f"x{NONCE[4:]}:e:1"], note=f"saw {NONCE[:16]} y",
                    pane_lines=[f"{NONCE[:16]} {NONCE[16:]}", "$"])
    clean = scrubbed(Strategy(), ending)  # type: ignore[arg-type]
    assert (clean.output, clean.pane_lines, clean.note) == (["x"], ["$"], "saw  y")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
async def test_a_resumed_run_returns_only_its_own_output(
    stdio_client, rc_pane, fish_pane, shell
):
    # C-z, a run while it is stopped, jobs, then fg: between its markers the pane shows the
    # job lines (which name its private directory), the other run, jobs and the fg line
    pane = fish_pane() if shell == "fish" else rc_pane(shell)
    s, p = pane.server, pane.pane_id
    command = f"echo begun; {s.binary} -S {s.socket_path} wait-for marks-fg; echo resumed"
    async with stdio_client(toolsets=["execute", "inspect"]) as client:
        first = await run(client, p, command, timeout=0)
        seen = await call(client, "wait_for_text", {"pane_id": p, "patterns": ["begun"],
                                                    "timeout": 10})
        assert seen["outcome"] in ("matched", "present_at_entry"), seen
        await call(client, "send_keys", {"pane_id": p, "keys": ["C-z"]})
        stopped = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert (stopped["outcome"], stopped["output"]) == ("stopped", ["begun"]), (
            stopped["output"], stopped["outcome"])
        assert (await run(client, p, "echo meanwhile"))["output"] == ["meanwhile"]
        for keys in ("jobs", "fg"):  # jobs lists the job as stopped again, before fg
            await call(client, "send_keys", {"pane_id": p, "keys": [keys], "literal": True,
                                             "enter": True})
        s.cmd("wait-for", "-S", "marks-fg")
        done = await call(client, "wait_for_run", {"run_id": first["run_id"], "timeout": 10})
        assert (done["outcome"], done["exit_status"]) == ("completed", 0), done
        assert done["output"] == ["begun", "resumed"], done["output"]
        assert "stopped" in done["note"], done

"""Every line a frame types or prints is one that reads leave out (issue 29): the shapes
``muxport.policy.without_plumbing`` knows (docs/answers.md, "Plumbing") are the frames'
own, so a change to a frame that a read would show fails here. And a person watching the
pane sees no marker of a local run."""

from __future__ import annotations

import re

import pytest
from execute_kit import run
from muxport.policy import without_plumbing
from muxport_execute.frames import local_files, typed_buffer
from muxport_execute.frames.base import Markers
from muxport_execute.frames.strategy import Ending
from muxport_execute.frames.typed_text import Kind, new_typed_frame
from muxport_execute.run.driver import scrubbed

pytestmark = pytest.mark.timeout(30)

MARKER = re.compile(r"[0-9a-f]{32}:(?:s|e:[0-9]+)$")
PROMPTS = ["", "$ ", "user@host:~/src$ ", "~ [12]$ "]
COMMAND = "printf '%s\\n' \"it's\" | grep -c it; echo 'a\\tb' 100%!"


@pytest.mark.parametrize("fish", [False, True])
def test_the_local_frame_s_rows_are_left_out(fish: bool) -> None:
    frame = local_files.prepare("echo hi", "/usr/bin/tmux", "/tmp/tmux-0/x", True, fish)
    try:
        for history in (True, False):
            for prompt in PROMPTS:
                assert without_plumbing(prompt + frame.typed_line(history)) is None
        assert without_plumbing(frame.start_marker) is None
        assert without_plumbing(f"{frame.nonce}:e:0") is None
        assert without_plumbing(f"out{frame.nonce}:e:3") == "out"
        # the job the shell reports on C-z and fg: run's subshell line (local_text.run_text)
        job = (frame.directory / "run").read_text().splitlines()[-1]
        assert without_plumbing(f"[1]+  Stopped                 {job}") is None
        assert without_plumbing(job) is None
    finally:
        frame.remove()


@pytest.mark.parametrize(("kind", "zsh"), [("posix", False), ("posix", True), ("fish", False)])
def test_the_typed_frame_s_rows_are_left_out(kind: Kind, zsh: bool) -> None:
    frame = new_typed_frame(kind, zsh)
    for history in (True, False):
        for prompt in PROMPTS:
            assert without_plumbing(prompt + frame.typed_line(COMMAND, history)) is None
            fetch = typed_buffer.fetch("/usr/bin/tmux", "/tmp/tmux-0/default", "muxport-run-"
                                       + frame.nonce[:16])
            assert without_plumbing(prompt + frame.typed_line(COMMAND, history, fetch)) is None
    # a capture of the screen alone may begin in the middle of a typed line, wrapped over
    # rows (of 80 columns here): what is left of it goes too, if more than its last 8
    line = frame.typed_line(COMMAND, True)
    for cut in range(80, len(line) - 8, 80):
        assert without_plumbing(line[cut:]) is None, line[cut:]
    assert without_plumbing("$ " + frame.probe_line()) is None
    for marker in (frame.start_marker, f"{frame.nonce}:e:0", f"{frame.nonce}:x:137",
                   f"{frame.nonce}:p::5.9"):
        assert without_plumbing(marker) is None
    assert without_plumbing(f"^Z{frame.nonce}:x:148") == "^Z"
    # a job line quotes the program's first line (bash, dash, ksh: "[1]+ Stopped ( trap ...")
    first = frame.program(COMMAND, suppress_history=False).splitlines()[0]
    assert without_plumbing(f"[1]+  Stopped                 {first}") is None


@pytest.mark.timeout(60)
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
async def test_a_person_sees_no_marker_of_a_local_run(
    stdio_client, shell_pane, fish_pane, tmux_server, shell: str
) -> None:
    # the markers are printed concealed (SGR 8): tmux keeps their text for the captures
    # the run reads, and shows a person a blank row (frames/local_text.py)
    pane = fish_pane() if shell == "fish" else shell_pane(shell)
    async with stdio_client(toolsets=["execute"]) as client:
        done = await run(client, pane.pane_id, "printf 'a\\nb'")
        assert (done["outcome"], done["output"]) == ("completed", ["a", "b"]), done
    styled = tmux_server.lines("capture-pane", "-p", "-e", "-t", pane.pane_id, "-S", "-")
    plain = tmux_server.lines("capture-pane", "-p", "-t", pane.pane_id, "-S", "-")
    markers = [i for i, row in enumerate(plain) if MARKER.search(row)]
    # fish's child prints the start marker again once config.fish has run (frames/fish.py)
    assert len(markers) == (3 if shell == "fish" else 2), plain
    shown = visible(styled)
    for i in markers:
        assert shown[i] in ("", "b"), (i, styled[i], plain[i])  # "b" stays visible


def visible(rows: list[str]) -> list[str]:
    """Rows of ``capture-pane -e`` without what is concealed (SGR 8, until 0 or 28). tmux
    writes an attribute only where it changes, so a row may begin concealed by an earlier
    row's SGR 8: the state carries over."""
    shown, hidden = [], False
    for row in rows:
        out, at = [], 0
        for sgr in re.finditer(r"\x1b\[([0-9;]*)m", row):
            out.append("" if hidden else row[at : sgr.start()])
            codes = set(sgr.group(1).split(";"))
            hidden = "8" in codes or (hidden and not {"", "0", "28"} & codes)
            at = sgr.end()
        shown.append("".join(out) + ("" if hidden else row[at:]))
    return shown


def test_what_the_pane_showed_holds_no_row_of_other_runs() -> None:
    # an ending's pane_lines (not_started, lost) quote the pane, where earlier runs (of this
    # muxport or another) left their typed lines and markers
    other = new_typed_frame("posix")
    mine = Markers("b" * 32)

    class Strategy:  # the driver needs only scrub from the frame here
        def scrub(self, rows: list[str]) -> list[str]:
            return mine.scrub(rows)

    seen = ["$  \\. '/tmp/mxr-81234.5567.cb5b98bf-3vmgfsqu/run'", f"{other.nonce}:s", "old",
            f"done{other.nonce}:e:0", "$ " + other.probe_line(), "$"]
    ending = Ending("not_started", pane_lines=seen)
    assert scrubbed(Strategy(), ending).pane_lines == ["old", "done", "$"]  # type: ignore[arg-type]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("prompt", ["short", "long"])
async def test_the_typed_line_s_row_goes_only_where_it_fitted(
    stdio_client, rc_pane, tmux_server, prompt: str
) -> None:
    # the start marker takes the typed line's row where the line fitted on it; a line that
    # wrapped stays whole, and no row above it (the person's own) is ever erased
    ps1 = "$ " if prompt == "short" else "a-prompt-long-enough-to-wrap-the-typed-line $ "
    pane = rc_pane("bash", f"PS1='{ps1}'", width=80)
    pane.type("echo mine")
    async with stdio_client(toolsets=["execute"]) as client:
        for _ in range(2):
            done = await run(client, pane.pane_id, "echo theirs")
            assert (done["outcome"], done["output"]) == ("completed", ["theirs"]), done
    raw = tmux_server.lines("capture-pane", "-p", "-t", pane.pane_id, "-S", "-")
    assert "mine" in raw and raw.count("theirs") == 2, raw
    typed = [row for row in raw if "mxr-" in row or row.endswith("/run'")]
    assert len(typed) == (0 if prompt == "short" else 4), raw  # a wrapped line: 2 rows each

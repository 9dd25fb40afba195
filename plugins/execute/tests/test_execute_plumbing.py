"""Every line a frame types or prints is one that reads leave out (issue 29): the shapes
``muxport.policy.without_plumbing`` knows (docs/answers.md, "Plumbing") are the frames'
own, so a change to a frame that a read would show fails here."""

from __future__ import annotations

import pytest
from muxport.policy import without_plumbing
from muxport_execute.frames import local_files, typed_buffer
from muxport_execute.frames.typed_text import Kind, new_typed_frame

pytestmark = pytest.mark.timeout(30)

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
    assert without_plumbing("$ " + frame.probe_line()) is None
    for marker in (frame.start_marker, f"{frame.nonce}:e:0", f"{frame.nonce}:x:137",
                   f"{frame.nonce}:p::5.9"):
        assert without_plumbing(marker) is None
    assert without_plumbing(f"^Z{frame.nonce}:x:148") == "^Z"
    # a job line quotes the program's first line (bash, dash, ksh: "[1]+ Stopped ( trap ...")
    first = frame.program(COMMAND, suppress_history=False).splitlines()[0]
    assert without_plumbing(f"[1]+  Stopped                 {first}") is None

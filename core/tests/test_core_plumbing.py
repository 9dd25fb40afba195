"""What runs leave in a pane is told by its shape (issue 29; docs/answers.md, "Plumbing"):
every row a run leaves goes, and output that only looks alike stays. The frames' own
lines are checked against the same function in the execute tests
(``test_execute_plumbing.py``)."""

from __future__ import annotations

import pytest
from muxport.policy import without_plumbing

pytestmark = pytest.mark.timeout(30)

NONCE = "6a2a99dbf4bf1e032e9a9c0ba4f3835d"
H1, H2 = NONCE[:16], NONCE[16:]
DIR = "/tmp/mxr-81234.5567.cb5b98bf-3vmgfsqu"

PLUMBING = [
    f"$  \\. '{DIR}/run'",  # bash, zsh: the typed line after the prompt
    f"\\. '{DIR}/run'",
    f"$ sh '{DIR}/run'",  # fish
    f"user@host ~/src (main)$  \\. '{DIR}/run'          [12:01:33]",  # a right prompt
    "$  \\. '/tmp/mxr-3vmgfsqu/run'",  # an older muxport's directory name
    f"{NONCE}:s",
    f"{NONCE}:e:0",
    f"{NONCE}:e:130",
    f"{NONCE}:x:137",
    f"{NONCE}:p::",
    f"{NONCE}:p:3.6.0:",
    f"{NONCE}:p::5.9",
    f"[1]+  Stopped                 ( \\. '{DIR}/frame' )",  # C-z: the job line
    f"( \\. '{DIR}/frame' )",  # fg
    f"zsh: suspended  ( \\. '{DIR}/frame'; )",
    "fish: Job 1, 'sh '/tmp/mxr-81234.5567.cb5b98bf-3v\u2026' has stopped",
    f"$  : /;eval \"$(printf '{{ case ${{BASH_VERSION-}} in ?*) case $(history 1) in *{H1}*) "
    "history -d $HISTCMD||:;; esac\\012')\"",
    f"> : /;sh -c (printf '(trap \\047printf \"%s%s:e:%s\\134n\" {H1} {H2} \"$?\"\\047 "
    "EXIT\\012' | string collect)",
    f"$  : /;printf '%s%s:p:%s:%s\\n' {H1} {H2} \"$FISH_VERSION\" \"$ZSH_VERSION\"",
    f"$  : /;eval \"$('/usr/bin/tmux' -S '/tmp/tmux-0/default' show-buffer -b muxport-run-{H1} "
    f"\\; delete-buffer -b muxport-run-{H1})\"",
    f"[1]+  Stopped                 ( trap 'printf \"%s%s:e:%s\\n\" {H1} {H2} \"$?\"' EXIT;",
    # the screen alone: a typed line that began above it, from a row of its middle
    f"*{H1}*) hist -p||:;; esac; printf \\047\\045s:x:\\045s\\134n\\047 {H1} {H2} "
    "\"$?\"\\012')\"",
    "exec fish -c \\047echo hi\\012\\047\\012))\\012' | string collect)",
]


@pytest.mark.parametrize("row", PLUMBING)
def test_every_row_a_run_leaves_is_left_out(row: str) -> None:
    assert without_plumbing(row) is None
    assert without_plumbing(row + "   ") is None  # a capture keeps trailing blanks


@pytest.mark.parametrize(
    ("row", "shown"),
    [
        (f"partial-1{NONCE}:e:0", "partial-1"),  # a last line without its newline
        (f"abc{NONCE}:e:1", "abc"),  # ending in hex digits itself
        (f"^Z{NONCE}:x:148", "^Z"),  # dash: C-z, then the far shell's marker
    ],
)
def test_an_end_marker_after_output_leaves_the_output(row: str, shown: str) -> None:
    assert without_plumbing(row) == shown


OUTPUT = [
    "",
    "$ ",
    "d41d8cd98f00b204e9800998ecf8427e  -",  # md5sum
    "550e8400-e29b-41d4-a716-446655440000",
    f"{NONCE}",  # a hash alone
    f"{NONCE}:source.txt",  # a hash and a file name
    f"key {NONCE}:s3cret",
    "commit 0a5bce2e4c3f7d0e2b8f3a9d1c6e4b7a8f9d0c1e",
    f"0a5bce2e{NONCE}:subject",
    f"{NONCE[:31]}:s",  # 31 digits: not a nonce
    f"{NONCE.upper()}:s",
    "ls /tmp: mxr-81234.5567.cb5b98bf-3vmgfsqu  tmux-0",
    f"root 812 0.0 sh {DIR}/run",  # ps: unquoted, the command's own output
    "The typed line of a local run, `\\. '/tmp/mxr-\u2026/run'`, starts with a space",  # docs
    "`( \\. '/tmp/mxr-\u2026/frame' )`",
    '␠: /;eval "$(printf \'P\')"',  # the typed frame's docs
    "x=1; : /;echo plain",
    "printf '%s%s:s\\n' a b",  # printf formats without a nonce's halves
    "grep -n ':e:0' log.txt",
    "12:e:0",
    "echo 'x')\"",
    "printf '\\012')",
]


@pytest.mark.parametrize("row", OUTPUT)
def test_output_that_only_looks_alike_stays(row: str) -> None:
    assert without_plumbing(row) == row

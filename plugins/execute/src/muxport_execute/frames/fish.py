"""The child fish that runs a fish pane's command, for both frames (docs/runs-and-waits.md,
"fish").

fish has no subshell, so a frame runs the command in a child fish: ``exec fish -C INIT
ARGS`` (the local frame: its ``cmd`` file; the typed frame: ``-c '<the command>'``). Two
things of that fish are not the command's:

- Every fish, a child running a script too, reads the user's ``config.fish`` and
  ``conf.d`` before the command, and whatever they print would begin the run's output.
  The init command (``-C``, run once the configuration has run) prints the run's start
  marker a second time; the output begins after the last start marker
  (``base.extract``), so the configuration's lines stay above it, and the frame's first
  start marker still says at once that the run started (a slow configuration is no late
  start).
- fish's first-prompt setup (``__fish_config_interactive``: key bindings, bracketed
  paste, colours) runs at the first ``fish_read`` event too: a ``read`` in the command runs
  it in the child. On a fish whose man-page completions are not generated yet, it starts
  ``python3 create_manpage_completions.py`` in the background, and a child fish has no
  job control: that scan would work in the run's foreground process group for minutes,
  so the run never reads as waiting for input (and its way out names python3). The pane's
  own fish started that scan already; the child runs the setup without it, through the
  switch fish's setup honours for that (``FISH_UNIT_TESTS_RUNNING``, set only while the
  setup runs: it also leaves out bracketed paste and the focus and directory reports).
"""

from __future__ import annotations

from muxport_execute.frames.base import quote

# fish's hook of its first-prompt setup (share/config.fish, fish 3.0 to 3.7), replaced for
# the child: the same setup at its first read, without the man-page scan
SETUP = (
    "function __fish_on_interactive --on-event fish_read; functions -e __fish_on_interactive; "
    "set -g FISH_UNIT_TESTS_RUNNING 1; __fish_config_interactive; "
    "set -e FISH_UNIT_TESTS_RUNNING; end"
)


def child_fish(marker: str, args: str) -> str:
    """The command line that runs fish with ``args`` after printing ``marker`` (fish code:
    a ``printf`` of the start marker) once the configuration has run."""
    return f"exec fish -C {quote(marker + '; ' + SETUP)} {args}"

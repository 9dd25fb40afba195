"""The server instructions sent at initialize (docs/architecture.md). They live with the
launcher, which may answer initialize before the server has loaded (docs/startup.md)."""

INSTRUCTIONS = """\
muxport serves one tmux server. Targets are exact ids from the listings: panes %N, \
windows @N, sessions $N; a bare number is refused.

Which wait to use:
- run_shell_command for a command you write: one call returns its output and exit status. \
If it outlives its timeout you get outcome timed_out and a run_id: call wait_for_run(run_id).
- wait_for_channel for commands you compose yourself: end them with `tmux wait-for -S NAME`.
- wait_for_text for output you did not start (a server's "ready" line, a prompt).
- capture_since to keep watching a pane: cursor "last" reads only what is new since your \
last look (capture_since or wait_for_text) at that pane.

Answers are bounded: reads keep the NEWEST lines (default 200, at most 5000) and report \
truncated and lines_dropped. Waits default to 30 s and are capped (120 s unless raised). \
A text answer is its fields as JSON on the first line, then its lines, one a line.

Caller pane: if muxport runs inside a pane of this server, listings mark it caller: true. \
Input tools never type into it, nor into a pane in copy mode, a dead pane, or the active pane \
a person is watching; kill tools refuse it (and its window and session) unless confirm_self \
is true. Errors name the recovery: read them and call the tool they name."""

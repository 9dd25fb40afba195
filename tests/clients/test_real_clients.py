"""What each real client (Claude Code, Gemini CLI, Codex) offers its model and hands it back
from muxport (issue 29): the tools on the model's first request; a 5,000-line capture, a
16-capture batch and a 100,000-line run reach the model whole, with the pane's newest line;
no plumbing in a read after runs. ``pytest -m clients`` selects them (docs/client-fit.md,
"Real clients")."""

from __future__ import annotations

import json

import pytest
from clients_kit import assert_whole, plumbing_in
from muxport.testing import ShellPane, TmuxServer, eventually

pytestmark = pytest.mark.timeout(300)
NAMES = ("capture_pane", "run_shell_command", "call_read_tools_batch", "wait_for_text")


def fill(pane: ShellPane, lines: int, newest: str) -> None:
    """``lines`` numbered lines, then ``newest`` as the pane's last line of output."""
    pane.type(f"seq -f 'row %06g of the log' 1 {lines}; echo {newest}")


async def printed(tmux_server: TmuxServer, pane: ShellPane, newest: str) -> None:
    def seen() -> bool:
        shown = tmux_server.cmd("capture-pane", "-p", "-t", pane.pane_id)
        return any(line == newest for line in shown.splitlines())
    await eventually(seen, what=f"{newest} on the screen", within=60, every=0.2)


def test_the_model_is_offered_muxports_tools_on_its_first_request(client, drive, shell_pane):
    """As a new user runs them: Claude Code with its tool search on (its default: the
    tools' names are listed in the first request, their schemas deferred); Codex lists
    the names only when the model looks (its ``exec`` tool), so its first request
    must at least name muxport's namespace."""
    shell_pane("bash")
    ran = drive(client, [("list_sessions", {})], tool_search=True)
    first = json.dumps(ran.first().body)
    wanted = ["mcp__muxport"] if client == "codex" else NAMES
    missing = [name for name in wanted if name not in first]
    if client == "codex" and missing:  # issue 29, left open
        pytest.xfail("Codex 0.171 asks its model before an MCP server answers tools/list, "
                     "and muxport lists its tools only once loaded (1.6-4 s after spawn)")
    assert missing == [], ran.done.stderr[-2000:]


async def test_a_5000_line_capture_reaches_the_model_whole(client, drive, shell_pane,
                                                           tmux_server):
    tmux_server.cmd("set", "-g", "history-limit", "10000")  # for panes made from now on
    pane = shell_pane("bash", width=120)
    fill(pane, 4999, "newest-capture-line")
    await printed(tmux_server, pane, "newest-capture-line")
    ran = drive(client, [("capture_pane", {"pane_id": pane.pane_id, "history": True,
                                           "max_lines": 5000})])
    assert_whole(ran.result(), "newest-capture-line")


async def test_a_16_capture_batch_reaches_the_model_whole(client, drive, shell_pane,
                                                          tmux_server):
    panes = [shell_pane("bash", width=120) for _ in range(4)]
    for n, pane in enumerate(panes):
        fill(pane, 1500, f"newest-of-pane-{n}")
    for n, pane in enumerate(panes):
        await printed(tmux_server, pane, f"newest-of-pane-{n}")
    operations = [{"tool": "capture_pane",
                   "arguments": {"pane_id": pane.pane_id, "history": True, "max_lines": 400}}
                  for pane in panes for _ in range(4)]
    ran = drive(client, [("call_read_tools_batch", {"operations": operations})])
    result = ran.result()
    for n in range(len(panes)):
        assert_whole(result, f"newest-of-pane-{n}")


def test_a_100000_line_run_reaches_the_model_whole(client, drive, shell_pane):
    pane = shell_pane("bash", width=120)
    command = "seq 1 100000; echo newest-run-line"
    ran = drive(client, [("run_shell_command", {"pane_id": pane.pane_id, "command": command,
                                                "timeout": 120, "max_lines": 5000})])
    assert_whole(ran.result(), "newest-run-line")


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_no_plumbing_in_what_the_model_reads_after_runs(client, drive, shell_pane, shell):
    if client != "claude" and shell != "bash":
        pytest.skip("the shells are covered through Claude Code; the other clients in bash")
    pane = shell_pane(shell, width=120)
    runs = [("run_shell_command", {"pane_id": pane.pane_id, "command": f"echo run-{n}"})
            for n in range(5)]
    reads = [("capture_pane", {"pane_id": pane.pane_id, "history": True}),
             ("snapshot_pane", {"pane_id": pane.pane_id}),
             ("search_panes", {"pattern": "run-"})]
    ran = drive(client, runs + reads)
    results = ran.results()
    assert len(results) == len(runs) + len(reads), (results, ran.done.stderr[-2000:])
    assert "run-4" in results[len(runs) - 1], results[len(runs) - 1]
    assert "run-4" in results[len(runs)], results[len(runs)]
    found = {n: plumbing_in(text) for n, text in enumerate(results[len(runs):])}
    assert {n: hits for n, hits in found.items() if hits} == {}, found

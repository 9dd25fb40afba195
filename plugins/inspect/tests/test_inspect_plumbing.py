"""No plumbing in what a model reads (issue 29): after runs of run_shell_command, no read
(capture_pane, capture_since, snapshot_pane, search_panes, wait_for_text, the batch)
answers with muxport's own typed lines, markers, nonces or private paths, and each says
how many rows it left out (``hidden_rows``; docs/answers.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from muxport.testing import answer_of, reach, text_block

pytestmark = pytest.mark.timeout(240)

RUNS = 20
# Any trace of a run's frame: a nonce (or a half of one), a marker's tail, a private path.
TRACE = re.compile(r"[0-9a-f]{16}|:s$|:[exp]:[0-9]*|mxr-|/run'|/frame'")
# Commands every shell runs alike (bash, zsh, fish): whole lines, a last line without its
# newline (the end marker then shares its row), a failure.
COMMANDS = ["echo out-{i}", "printf 'partial-{i}'", "seq {i} {i}", "false"]


def traces(value: Any, key: str = "") -> list[str]:
    """Every string in an answer that holds a trace (cursors are opaque base64: skipped)."""
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in traces(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in traces(v, key)]
    if isinstance(value, str) and key != "cursor":
        return [line for line in value.split("\n") if TRACE.search(line)]
    return []


async def read(client: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content[0].text
    data = answer_of(result)  # with what _meta carries for programs
    assert traces(data) == [], (name, traces(data))
    # the text block a model reads: its fields (line 1) and its body
    body = "content" if "content" in data else "output" if "output" in data else None
    shown = text_block(result.content[0].text, body)
    assert traces(shown) == [], (name, traces(shown))
    return data


def pane_for(shell: str, tmux_server: Any, shell_pane: Any) -> Any:
    if shell == "fish":
        if shutil.which("fish") is None:
            pytest.skip("fish is not installed")
        return reach.fish_pane(tmux_server, 100)
    return shell_pane(shell, width=100, height=30)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
async def test_no_read_answers_with_plumbing_after_twenty_runs(
    stdio_client, tmux_server, shell_pane, shell
):
    pane = pane_for(shell, tmux_server, shell_pane)
    target = {"pane_id": pane.pane_id}
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        await read(client, "capture_since", target)  # a baseline: "last" follows from here
        for i in range(RUNS):
            command = COMMANDS[i % len(COMMANDS)].format(i=i)
            result = await client.call_tool("run_shell_command", {**target, "command": command})
            assert not result.is_error, result.content[0].text
            assert result.structured_content["outcome"] == "completed"
        everything = {**target, "history": True, "max_lines": 5000}
        whole = await read(client, "capture_pane", everything)
        lines = whole["content"]
        # the command's output is all there, in order; a row of the frame is not
        assert [line for line in lines if line.startswith("out-")] == [
            f"out-{i}" for i in range(0, RUNS, 4)]
        assert sum(line.startswith("partial-") for line in lines) == RUNS // 4
        # two rows a run, its start and end markers (the end marker of a last line without
        # a newline shares that line's row, which stays without it): the start marker took
        # the typed line's row, which a person at the pane no longer sees either; fish's
        # child prints its start marker again once the person's config.fish has run
        per_run = 3 if shell == "fish" else 2
        assert whole["hidden_rows"] == per_run * RUNS - RUNS // 4, (whole["hidden_rows"], lines)
        raw = tmux_server.lines("capture-pane", "-p", "-t", pane.pane_id, "-S", "-")
        assert not [row for row in raw if "mxr-" in row], raw
        assert whole["line_count"] == len(lines)
        screen = await read(client, "capture_pane", target)
        assert screen["content"] and screen.get("hidden_rows", 0) > 0
        snap = await read(client, "snapshot_pane", everything)
        assert snap["content"] == lines and snap["hidden_rows"] == whole["hidden_rows"]
        since = await read(client, "capture_since", {**target, "cursor": "last"})
        # every run since the baseline: what the capture shows above the prompt
        new = since["content"]
        assert new[0] == "out-0" and new == lines[-1 - len(new) : -1], (new, lines)
        assert since["hidden_rows"] == whole["hidden_rows"], since
        found = await read(client, "search_panes", {"pattern": r"[0-9a-f]{16}|mxr-|:s$|:e:",
                                                    "regex": True})
        assert found["count"] == 0 and found["hidden_rows"] > 0, found
        seen = await read(client, "search_panes", {"pattern": f"out-{RUNS - 4}"})
        assert seen["count"] == 1
        # the line numbers are those of the screen a capture returns
        match = seen["matches"][0]
        assert screen["content"][match["line_number"] - 1] == match["line"]
        batch = await read(client, "call_read_tools_batch", {"operations": [
            {"tool": "capture_pane", "arguments": everything},
            {"tool": "snapshot_pane", "arguments": target},
            {"tool": "capture_since", "arguments": {**target, "cursor": "last"}},
            {"tool": "search_panes", "arguments": {"pattern": "mxr-"}},
        ]})
        assert batch["results"][0]["result"]["hidden_rows"] == whole["hidden_rows"]
        assert batch["results"][3]["result"]["count"] == 0

        # a wait never matches a run's plumbing, and answers with the run's output only
        cursor = (await read(client, "capture_since", target))["cursor"]
        await client.call_tool("run_shell_command", {**target, "command": "echo waited"})
        waited = await read(client, "wait_for_text", {
            **target, "cursor": cursor, "patterns": [r"[0-9a-f]{16}|mxr-|:s$|:e:0"],
            "regex": True, "timeout": 1})
        assert waited["outcome"] == "timed_out", waited
        assert "waited" in waited["output"] and waited["hidden_rows"] == per_run, waited
        anything = await read(client, "wait_for_text", {**target, "cursor": cursor})
        assert anything["outcome"] == "matched" and anything["matched_line"] == "waited"


async def test_a_wait_for_new_output_is_not_woken_by_a_run_s_plumbing(
    stdio_client, shell_pane
):
    # the typed line and the start marker come first: a wait for any new output answers
    # with the command's output, never with a row of the frame
    pane = shell_pane("bash")
    target = {"pane_id": pane.pane_id}
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        cursor = (await read(client, "capture_since", target))["cursor"]
        box: dict[str, Any] = {}

        async def wait() -> None:
            box["wait"] = await read(client, "wait_for_text", {
                **target, "cursor": cursor, "timeout": 20})

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                await client.call_tool(
                    "run_shell_command", {**target, "command": "sleep 0.3; echo late"})
        answer = box["wait"]
        assert answer["outcome"] == "matched" and answer["matched_line"] == "late", answer
        assert json.dumps(answer["output"]).count("late") == 1


@pytest.fixture(scope="module")
def su_users() -> Any:
    """A bash user and a fish user, reached with ``su -`` (the typed frame); root only."""
    if os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("fish") is None:
        pytest.skip("typed-frame tests create users: they run as root with fish installed")
    users = {"bash": reach.make_user("/bin/bash"),
             "fish": reach.make_user(shutil.which("fish") or "/usr/bin/fish")}
    fifos = Path(tempfile.mkdtemp(prefix="muxport-ready-"))
    fifos.chmod(0o755)  # the test users write their ready FIFOs here
    try:
        yield {**users, "fifos": fifos}
    finally:
        for user in users.values():
            reach.remove_user(user)
        shutil.rmtree(fifos, ignore_errors=True)


@pytest.mark.parametrize("shell", ["bash", "fish"])
async def test_no_read_answers_with_a_typed_frame_s_plumbing(
    stdio_client, tmux_server, su_users, shell
):
    # behind su the run types its program (a probe first, then a long line over several
    # rows, joined by the capture) and the far shell prints one more marker (:x:)
    pane = reach.su_pane(tmux_server, su_users[shell], su_users["fifos"], shell, 100)
    target = {"pane_id": pane.pane_id}
    async with stdio_client(toolsets=["inspect", "execute"]) as client:
        await read(client, "capture_since", target)
        for i in range(6):
            command = COMMANDS[i % len(COMMANDS)].format(i=i)
            result = await client.call_tool("run_shell_command", {**target, "command": command})
            assert result.structured_content["frame"] == "typed", result.structured_content
        whole = await read(client, "capture_pane", {**target, "history": True})
        assert [line for line in whole["content"] if line.startswith("out-")] == ["out-0",
                                                                                  "out-4"]
        # per run its typed line and three markers (the end marker of a line without a
        # newline shares its row), and where the far shell was unknown a probe and its answer
        assert whole["hidden_rows"] >= 4 * 6 - 2, whole
        since = await read(client, "capture_since", {**target, "cursor": "last"})
        assert since["hidden_rows"] == whole["hidden_rows"], since
        found = await read(client, "search_panes", {"pattern": r"[0-9a-f]{16}|: /;",
                                                    "regex": True})
        assert found["count"] == 0, found

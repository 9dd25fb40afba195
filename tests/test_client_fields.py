"""Fields clients add to every tool's arguments (Gemini CLI's ``wait_for_previous``) are
accepted and ignored by every tool, over real stdio; any other unknown argument is still
refused, naming the argument meant."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.wire_kit import Wire, initialized

pytestmark = pytest.mark.timeout(180)
ADDED = {"wait_for_previous": True}
IDS = ("pane_id", "window_id", "session_id")
VOLATILE = ("run_id", "seconds")  # differ between two runs of one command


@pytest.fixture
def wire(tmux_server: Any) -> Iterator[Wire]:
    with initialized(tmux_server) as session:
        yield session


def call(wire: Wire, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    _, answer = wire.request("tools/call", {"name": name, "arguments": arguments})
    assert "result" in answer, (name, answer)
    result: dict[str, Any] = answer["result"]
    return result


def steady(result: dict[str, Any]) -> dict[str, Any]:
    """A result without what differs between two calls of one thing (the time it took)."""
    data = {k: v for k, v in result.get("structuredContent", {}).items() if k not in VOLATILE}
    return {"isError": result.get("isError"), "data": data}


def test_every_tool_answers_alike_with_and_without_wait_for_previous(
    wire: Wire, tmux_server: Any
) -> None:
    pane = tmux_server.shell_pane("bash")
    # the window's name would follow its command (env, then bash) between two calls
    tmux_server.cmd("rename-window", "-t", pane.window_id, "fixed")
    ids = {"pane_id": pane.pane_id, "window_id": pane.window_id, "session_id": pane.session_id}
    _, listed = wire.request("tools/list")
    tools = listed["result"]["tools"]
    assert len(tools) == 47
    for tool in tools:
        name = tool["name"]
        # Every tool, without running anything: a refusal that names only the real defect.
        refused = call(wire, name, {"no_such_argument": 1})
        assert refused["isError"] is True and "no_such_argument" in refused["content"][0]["text"]
        assert call(wire, name, {**ADDED, "no_such_argument": 1}) == refused, name
        # Every read that needs at most an id runs both ways, with the same answer.
        required = set(tool["inputSchema"].get("required", []))
        if tool["annotations"].get("readOnlyHint") and required <= set(IDS):
            arguments = {key: ids[key] for key in required}
            if "timeout" in tool["inputSchema"]["properties"]:
                arguments["timeout"] = 0
            plain = steady(call(wire, name, arguments))
            assert not plain["isError"], (name, plain)
            assert steady(call(wire, name, {**arguments, **ADDED})) == plain, name


def test_a_run_takes_wait_for_previous_and_answers_as_without(
    wire: Wire, tmux_server: Any
) -> None:
    pane = tmux_server.shell_pane("bash")
    arguments = {"pane_id": pane.pane_id, "command": "printf 'ok\\n'; (exit 3)"}
    answers = []
    for extra in ({}, ADDED):
        result = call(wire, "run_shell_command", {**arguments, **extra})
        assert not result["isError"], result
        answers.append(steady(result)["data"])
    assert answers[0] == answers[1]
    assert answers[0]["output"] == ["ok"] and answers[0]["exit_status"] == 3


def test_other_unknown_arguments_name_the_one_meant(wire: Wire, tmux_server: Any) -> None:
    pane = tmux_server.shell_pane("bash")
    typo = call(wire, "capture_pane", {"pane": pane.pane_id})
    assert typo["isError"] is True
    assert "pane: unknown argument: did you mean pane_id?" in typo["content"][0]["text"]
    stray = call(wire, "list_sessions", {"verbose": True})
    assert "verbose: unknown argument: remove it" in stray["content"][0]["text"]
    nested = call(wire, "call_read_tools_batch", {"operations": [
        {"tool": "capture_pane", "arguments": {"pane_id": pane.pane_id, "lines": 5}}]})
    assert "lines: unknown argument: did you mean max_lines?" in nested["content"][0]["text"]

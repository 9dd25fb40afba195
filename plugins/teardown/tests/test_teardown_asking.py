"""Killing muxport's own pane without confirm_self asks the person when the client can be
asked (docs/asking.md): accept kills it; decline or cancel refuse with declined_by_user;
no answer within the deadline refuses; a client without elicitation is refused as before.
Both protocol eras, over the installed launcher's real stdio."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
from muxport.testing import Person, person_client

ERAS = ["legacy", "2026-07-28"]


def exists(tmux_server: Any, target: str) -> bool:
    done = subprocess.run(
        [tmux_server.binary, "-S", tmux_server.socket_path, "list-panes", "-t", target],
        capture_output=True, timeout=10, check=False,
    )
    return done.returncode == 0


def env_inside(tmux_server: Any, pane_id: str) -> dict[str, str]:
    return {"TMUX": f"{tmux_server.socket_path},1,0", "TMUX_PANE": pane_id,
            "LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "teardown",
            "MUXPORT_ASK_SECONDS": "3"}


def error_code(result: Any) -> str:
    assert result.is_error, result.structured_content
    assert result.meta["delivery"] == "not_sent"
    return str(result.meta["error_code"])


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("answer", ["decline", "cancel", "never"])
async def test_refusing_or_silent_person_keeps_the_pane(tmux_server, shell_pane, mode, answer):
    mine = shell_pane("bash")
    shell_pane("dash")
    person = Person([answer], late_after=5.0)
    async with person_client(env_inside(tmux_server, mine.pane_id), person, mode) as client:
        result = await client.call_tool("kill_pane", {"pane_id": mine.pane_id})
    expected = "unanswered_by_user" if answer == "never" else "declined_by_user"
    assert error_code(result) == expected
    assert result.meta["asked"] == "caller_pane"
    assert exists(tmux_server, mine.pane_id)
    assert len(person.asked) == 1
    question = person.asked[0].message
    assert f"kill pane {mine.pane_id}" in question and "(running bash)" in question
    assert "this MCP server runs in" in question


@pytest.mark.parametrize("mode", ERAS)
async def test_accepting_person_lets_the_own_pane_go(tmux_server, shell_pane, mode):
    mine = shell_pane("bash")
    shell_pane("dash")
    person = Person(["accept"])
    async with person_client(env_inside(tmux_server, mine.pane_id), person, mode) as client:
        report = await client.read_resource("tmux://capabilities")
        result = await client.call_tool("kill_pane", {"pane_id": mine.pane_id})
    assert not result.is_error, result.content
    assert result.structured_content["killed"] is True
    assert not exists(tmux_server, mine.pane_id)
    assert len(person.asked) == 1
    assert '"ask_person":{"form":true,"url":true' in report.contents[0].text


@pytest.mark.parametrize("mode", ERAS)
async def test_window_holding_the_own_pane_names_it(tmux_server, shell_pane, mode):
    mine = shell_pane("bash")
    shell_pane("dash")
    tmux_server.cmd("split-window", "-d", "-t", mine.pane_id, "cat")
    person = Person(["decline"])
    async with person_client(env_inside(tmux_server, mine.pane_id), person, mode) as client:
        result = await client.call_tool("kill_window", {"window_id": mine.window_id})
    assert error_code(result) == "declined_by_user"
    question = person.asked[0].message
    assert f"kill window {mine.window_id} with its 2 panes including pane {mine.pane_id}" \
        in question
    assert "bash" in question and "cat" in question
    assert exists(tmux_server, mine.window_id)


@pytest.mark.parametrize("mode", ERAS)
async def test_client_without_elicitation_is_refused_as_before(tmux_server, shell_pane, mode):
    mine = shell_pane("bash")
    shell_pane("dash")
    async with person_client(env_inside(tmux_server, mine.pane_id), None, mode) as client:
        result = await client.call_tool("kill_pane", {"pane_id": mine.pane_id})
        report = await client.read_resource("tmux://capabilities")
    assert error_code(result) == "caller_pane"
    assert "confirm_self" in result.content[0].text
    assert exists(tmux_server, mine.pane_id)
    assert '"ask_person":{"form":false,"url":false,"how":"not declared"' in report.contents[0].text


async def test_the_call_reports_progress_while_the_person_thinks(tmux_server, shell_pane):
    mine = shell_pane("bash")
    shell_pane("dash")
    told: list[str | None] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        told.append(message)

    person = Person(["never"], late_after=10.0)
    async with person_client(env_inside(tmux_server, mine.pane_id), person) as client:
        result = await client.call_tool("kill_pane", {"pane_id": mine.pane_id},
                                        progress_callback=progress)
    assert error_code(result) == "unanswered_by_user"
    assert told and all(m and m.startswith("waiting for the person to answer") for m in told)


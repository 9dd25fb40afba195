"""Input into the pane a person is looking at asks that person when the client can be asked
(docs/asking.md): the question names the pane, what runs in it and the keys or command;
accept sends, decline sends nothing. Over the installed launcher's real stdio, both eras."""

from __future__ import annotations

from typing import Any

import pytest
from muxport.testing import Person, eventually, person_client

ERAS = ["legacy", "2026-07-28"]
MARK = "asked-$((6*7))"


def attach(tmux_server: Any, session_id: str, channel: str) -> None:
    """A genuine read-write tmux client attached to ``session_id`` (a person's terminal)."""
    tmux_server.cmd("set-hook", "-g", "client-attached", f"wait-for -S {channel}")
    tmux_server.cmd(
        "new-session", "-d", "-s", f"viewer-{channel}", "-x", "80", "-y", "24",
        f"env -u TMUX TERM=xterm {tmux_server.binary} -S {tmux_server.socket_path} "
        f"attach -t '{session_id}'",
    )
    tmux_server.wait_for(channel)
    tmux_server.cmd("set-hook", "-gu", "client-attached")


def env(tmux_server: Any) -> dict[str, str]:
    return {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "execute",
            "MUXPORT_ASK_SECONDS": "5"}


def shows(pane: Any, text: str) -> bool:
    return any(text in line for line in pane.screen(history=True))


@pytest.mark.parametrize("mode", ERAS)
async def test_keys_into_an_attended_pane_go_when_the_person_accepts(
        tmux_server, shell_pane, mode):
    pane = shell_pane("bash")
    attach(tmux_server, pane.session_id, f"asked-{mode}")
    person = Person(["decline", "accept"])
    async with person_client(env(tmux_server), person, mode) as client:
        no = await client.call_tool("send_keys", {"pane_id": pane.pane_id,
                                                  "keys": [f"echo {MARK}"], "enter": True})
        yes = await client.call_tool("send_keys", {"pane_id": pane.pane_id,
                                                   "keys": [f"echo {MARK}"], "enter": True})
    assert no.is_error and no.meta["error_code"] == "declined_by_user"
    assert no.meta["asked"] == "refused" and no.meta["reason"] == "attended"
    assert not yes.is_error, yes.content
    await eventually(lambda: shows(pane, "asked-42"))
    assert [p.message.count(f"pane {pane.pane_id} (running bash") for p in person.asked] == [1, 1]
    assert f"the keys 'echo {MARK}' then Enter" in person.asked[0].message


@pytest.mark.parametrize("mode", ERAS)
async def test_a_command_into_an_attended_pane_asks_once(tmux_server, shell_pane, mode):
    pane = shell_pane("bash")
    attach(tmux_server, pane.session_id, f"run-{mode}")
    person = Person(["accept"])
    async with person_client(env(tmux_server), person, mode) as client:
        result = await client.call_tool("run_shell_command", {
            "pane_id": pane.pane_id, "command": "echo ran-$((6*7))", "timeout": 20})
    assert not result.is_error, result.content
    assert result.structured_content["exit_status"] == 0
    assert "ran-42" in "\n".join(result.structured_content["output"])
    assert len(person.asked) == 1  # the check right before typing finds the answer given
    assert "the command 'echo ran-$((6*7))'" in person.asked[0].message


async def test_no_elicitation_refuses_the_attended_pane_as_before(tmux_server, shell_pane):
    pane = shell_pane("bash")
    attach(tmux_server, pane.session_id, "not-asked")
    async with person_client(env(tmux_server), None) as client:
        result = await client.call_tool("send_keys", {"pane_id": pane.pane_id, "keys": ["C-l"]})
    assert result.is_error and result.meta["error_code"] == "refused"
    assert result.meta["reason"] == "attended"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_synchronized_cohort_with_an_attended_pane_asks_about_that_pane(
        tmux_server, shell_pane, mode):
    watched = shell_pane("bash")  # the active pane a person's client shows
    beside = tmux_server.cmd("split-window", "-d", "-P", "-F", "#{pane_id}", "-t",
                             watched.pane_id, "bash --norc --noprofile").strip()
    tmux_server.cmd("set", "-w", "-t", watched.window_id, "synchronize-panes", "on")
    attach(tmux_server, watched.session_id, f"sync-{mode}")
    person = Person(["decline", "accept"])
    keys = {"pane_id": beside, "keys": ["echo synced-$((6*7))"], "enter": True}
    async with person_client(env(tmux_server), person, mode) as client:
        no = await client.call_tool("send_keys", keys)
        yes = await client.call_tool("send_keys", keys)
    assert no.is_error and no.meta["error_code"] == "declined_by_user"
    assert no.meta["cohort"] == [beside, watched.pane_id]
    assert not yes.is_error, yes.content
    assert yes.structured_content["resolved_pane_ids"] == [beside, watched.pane_id]
    await eventually(lambda: shows(watched, "synced-42"))
    question = person.asked[0].message
    assert f"pane {watched.pane_id} (running bash" in question
    assert f"through synchronize-panes from {beside}" in question


@pytest.mark.parametrize("mode", ERAS)
async def test_a_batch_never_replays_rows_it_sent_to_ask_about_a_later_one(
        tmux_server, shell_pane, mode):
    free, watched = shell_pane("bash"), shell_pane("bash")
    attach(tmux_server, watched.session_id, f"batch-{mode}")
    person = Person(["accept"])
    rows = [{"pane_id": free.pane_id, "keys": ["echo once-$((6*7))"], "enter": True},
            {"pane_id": watched.pane_id, "keys": ["echo second-$((6*7))"], "enter": True}]
    async with person_client(env(tmux_server), person, mode) as client:
        batch = await client.call_tool("send_keys_batch", {"operations": rows})
    assert not batch.is_error, batch.content
    await eventually(lambda: shows(free, "once-42"))
    assert sum("once-42" == line.strip() for line in free.screen(history=True)) == 1
    second = batch.structured_content["results"][1]
    if mode == "legacy":  # asked while the call waits: nothing is replayed
        assert second["success"] is True and len(person.asked) == 1
        await eventually(lambda: shows(watched, "second-42"))
    else:  # asking would end the call and replay row 0: the refusal stands
        assert second["error_code"] == "refused" and person.asked == []
        assert not shows(watched, "second-42")

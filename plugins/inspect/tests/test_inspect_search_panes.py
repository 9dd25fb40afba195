"""search_panes finds every pane it lists (issue 30): many panes, pane ids past %9,
both transports, and a property over random pane counts.

tmux's ``display-message`` runs its template through strftime before expanding ``#{}``
(format.c, format_expand_time), so a pane id such as ``%5`` in a marker is rewritten;
the search once dropped every pane after %2 without a word.
"""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from muxport.testing import CheckedCalls
from muxport_inspect.search import Scan

pytestmark = pytest.mark.timeout(120)
_serial = itertools.count(1)


def printing_panes(server, count: int) -> list[str]:
    """``count`` panes (one session, a window each) that printed ``hello-<n>`` and then
    sit in cat; returns their ids in order. Each pane signals once it has printed."""
    channel = f"muxport-hello-{os.getpid()}-{next(_serial)}"
    signal = f"{server.binary} -S {server.socket_path} wait-for -S {channel}"
    panes = []
    for n in range(count):
        command = f"printf 'hello-{n}\\n'; {signal}-{n}; exec cat"
        if n == 0:
            session = f"hello{next(_serial)}"
            out = server.cmd("new-session", "-d", "-s", session, "-P", "-F", "#{pane_id}",
                             "-x", "40", "-y", "5", command)
        else:
            out = server.cmd("new-window", "-d", "-t", f"{session}:", "-P", "-F", "#{pane_id}",
                             command)
        panes.append(out.strip())
    for n in range(count):
        server.wait_for(f"{channel}-{n}")
    return panes


def set_transport(monkeypatch: pytest.MonkeyPatch, transport: str) -> None:
    if transport == "fork":
        monkeypatch.setenv("MUXPORT_TRANSPORT", "fork")
    else:
        monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)


def assert_every_pane(found: dict, panes: list[str]) -> None:
    by_pane = {m["pane_id"]: m["line"] for m in found["matches"]}
    assert sorted(by_pane, key=lambda p: int(p[1:])) == sorted(panes, key=lambda p: int(p[1:]))
    assert {by_pane[p] for p in panes} == {f"hello-{n}" for n in range(len(panes))}
    assert found["panes_searched"] == len(panes)
    assert found["count"] == len(panes)
    assert found["work_limited"] is False and found["truncated"] is False
    assert "note" not in found


@pytest.mark.parametrize("transport", ["socket", "fork"])
async def test_twelve_windows_every_pane_found(mcp_client, tmux_server, monkeypatch, transport):
    set_transport(monkeypatch, transport)
    panes = printing_panes(tmux_server, 12)
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        found = await CheckedCalls(client)("search_panes", {"pattern": "hello-"})
    assert_every_pane(found, panes)


@pytest.mark.parametrize("transport", ["socket", "fork"])
async def test_survey_of_fifty_panes(mcp_client, tmux_server, monkeypatch, transport):
    # 50 panes are two invocations of 25 (search.CHUNK): the chunking is covered too
    set_transport(monkeypatch, transport)
    panes = printing_panes(tmux_server, 50)
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        found = await CheckedCalls(client)(
            "search_panes", {"pattern": "hello-", "max_matches": 1000}
        )
    assert_every_pane(found, panes)


@pytest.mark.anyio  # the kit marks plain coroutines; anyio runs @given ones if marked
@settings(
    max_examples=4, deadline=None, database=None, phases=[Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(count=st.integers(min_value=1, max_value=60), transport=st.sampled_from(["socket", "fork"]))
async def test_any_pane_count_every_pane_found(mcp_client, tmux_server, count, transport):
    # one server for every example: each starts from no sessions (exit-empty is off)
    for session in tmux_server.lines("list-sessions", "-F", "#{session_id}"):
        tmux_server.cmd("kill-session", "-t", session)
    with pytest.MonkeyPatch.context() as monkeypatch:
        set_transport(monkeypatch, transport)
        panes = printing_panes(tmux_server, count)
        async with mcp_client(toolsets=["inspect"]) as (client, _app):
            found = await CheckedCalls(client)(
                "search_panes", {"pattern": "hello-", "max_matches": 1000}
            )
    assert_every_pane(found, panes)


def test_a_listed_pane_without_a_screen_is_counted_not_dropped():
    # the search's own bookkeeping: a pane listed but not read (closed meanwhile, or a
    # marker that did not come back) is counted, and the answer's note says so
    scan = Scan(lambda line: line.find("x"), total_cap=10, pane_cap=10)
    scan.chunk([["%1", "$0", "@0"], ["%12", "$0", "@1"]], {"%1": ["x"]})
    assert (scan.searched, scan.unread, len(scan.matches)) == (1, 1, 1)

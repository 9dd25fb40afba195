"""wait_for_channel: signalled, timed_out, drain_first, server_gone, and clean cancellation.

"The call has started" is known from the progress notification the tool sends once
its waiter is registered with tmux, never from a sleep.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from muxport.testing import answer_of, eventually


def not_pending(tmux_server: Any, channel: str) -> bool:
    """True when tmux keeps no signal and no (dead) waiter for ``channel``.

    ``-S`` then sets it pending and the wait returns at once; a kept signal would be
    toggled off, and a lingering dead waiter would swallow the ``-S``: the wait would
    block until the bounded timeout.
    """
    try:
        tmux_server.cmd("wait-for", "-S", channel, ";", "wait-for", channel, timeout=3)
    except Exception:
        return False
    return True


async def clients_settle(tmux_server: Any, count: int) -> int:
    """The tmux server's client connections once they number ``count``, or after 10 s.

    Counted on the server's side, so that a forked ``tmux wait-for`` and a waiter over
    muxport's socket transport count alike; tmux closes a gone client's socket when it
    next reads it, hence a bounded poll.
    """
    return int(await eventually(
        tmux_server.connections, lambda now: now == count, within=10, last_on_timeout=True
    ))


async def start_wait(
    client: Any, arguments: dict[str, Any], group: Any, answers: list[Any]
) -> anyio.Event:
    """Start wait_for_channel in ``group``; the event is set once its waiter is registered."""
    registered = anyio.Event()

    async def progress(value: float, total: float | None, message: str | None) -> None:
        if message and "registered" in message:
            registered.set()

    async def call() -> None:
        answers.append(
            await client.call_tool("wait_for_channel", arguments, progress_callback=progress)
        )

    group.start_soon(call)
    return registered


async def run_wait(
    client: Any, arguments: dict[str, Any], then: Callable[[], Awaitable[None] | None]
) -> Any:
    answers: list[Any] = []
    async with anyio.create_task_group() as group:
        registered = await start_wait(client, arguments, group, answers)
        with anyio.fail_after(15):
            await registered.wait()
        done = then()
        if done is not None:
            await done
    return answers[0]


async def test_signalled_by_a_pane_after_the_call_starts(mcp_client, shell_pane, tmux_server):
    pane = shell_pane("bash")
    signal = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for -S mx-go"
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        result = await run_wait(
            client, {"channel": "mx-go", "timeout": 20}, lambda: pane.type(signal)
        )
    assert not result.is_error, result.content
    assert result.structured_content["outcome"] == "signalled"
    assert "note" not in result.structured_content
    assert result.structured_content["seconds"] < 20
    assert not_pending(tmux_server, "mx-go")
    assert await clients_settle(tmux_server, 0) == 0


async def test_timed_out_leaves_no_waiter_behind(mcp_client, tmux_server, shell_pane):
    shell_pane("dash")
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        result = await client.call_tool("wait_for_channel", {"channel": "mx-quiet", "timeout": 0.5})
    assert "effective_timeout" not in result.structured_content  # the call named it
    data = answer_of(result)  # a program reads it in _meta
    assert data["outcome"] == "timed_out" and data["effective_timeout"] == 0.5
    assert data["seconds"] >= 0.5 and "wait_for_channel again" in data["note"]
    assert await clients_settle(tmux_server, 0) == 0
    # No dead waiter swallows the next signal: a later signal is kept for the next wait.
    assert not_pending(tmux_server, "mx-quiet")


async def test_drain_first_ignores_an_earlier_signal(mcp_client, tmux_server, shell_pane):
    pane = shell_pane("dash")
    tmux_server.cmd("wait-for", "-S", "mx-old")
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        stale = await client.call_tool(
            "wait_for_channel", {"channel": "mx-old", "timeout": 0.5, "drain_first": True}
        )
        assert stale.structured_content["outcome"] == "timed_out"
        assert not_pending(tmux_server, "mx-old")
        # ... while a signal sent after the call starts still counts.
        signal = f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for -S mx-old"
        fresh = await run_wait(
            client,
            {"channel": "mx-old", "timeout": 20, "drain_first": True},
            lambda: pane.type(signal),
        )
    assert fresh.structured_content["outcome"] == "signalled"


async def test_cancelled_wait_leaves_no_client_and_no_lost_signal(
    mcp_client, tmux_server, shell_pane
):
    shell_pane("dash")
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        answers: list[Any] = []
        async with anyio.create_task_group() as group:
            registered = await start_wait(
                client, {"channel": "mx-cancel", "timeout": 60}, group, answers
            )
            with anyio.fail_after(15):
                await registered.wait()
            assert await clients_settle(tmux_server, 1) == 1
            group.cancel_scope.cancel()
        assert answers == []
        # The server releases its waiter as soon as it handles the cancellation.
        assert await clients_settle(tmux_server, 0) == 0
        # The server is still answering, and the channel is clean.
        later = await client.call_tool("signal_channel", {"channel": "mx-after"})
        assert not later.is_error
    assert not_pending(tmux_server, "mx-cancel")


async def test_server_gone_while_waiting(mcp_client, tmux_server, shell_pane):
    shell_pane("dash")
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        result = await run_wait(
            client, {"channel": "mx-gone", "timeout": 20}, lambda: tmux_server.kill()
        )
        again = await client.call_tool("wait_for_channel", {"channel": "mx-gone", "timeout": 20})
    assert again.structured_content["outcome"] == "server_gone"
    assert again.structured_content["seconds"] < 10
    assert result.structured_content["outcome"] == "server_gone"
    assert await clients_settle(tmux_server, 0) == 0


async def test_a_timeout_beside_another_wait_does_not_wake_it(mcp_client, tmux_server, shell_pane):
    shell_pane("dash")
    async with mcp_client(toolsets=["manage"]) as (client, _app):
        answers: list[Any] = []
        async with anyio.create_task_group() as group:
            registered = await start_wait(
                client, {"channel": "mx-two", "timeout": 30}, group, answers
            )
            with anyio.fail_after(15):
                await registered.wait()
            short = await client.call_tool(
                "wait_for_channel", {"channel": "mx-two", "timeout": 0.3}
            )
            assert short.structured_content["outcome"] == "timed_out"
            assert answers == []  # the long wait was not woken by the short one's exit
            # only the long wait's client
            assert await clients_settle(tmux_server, 1) == 1
            tmux_server.cmd("wait-for", "-S", "mx-two")
        assert answers[0].structured_content["outcome"] == "signalled"
    assert await clients_settle(tmux_server, 0) == 0
    assert not_pending(tmux_server, "mx-two")  # the short wait's waiter was consumed too

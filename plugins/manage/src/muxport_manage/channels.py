"""wait_for_channel and signal_channel: tmux ``wait-for`` channels, bounded and leak-free.

tmux facts this module is built around (docs/tmux-facts.md, wait-for; tmux 3.3a):

- a ``wait-for -S`` with nobody waiting is remembered for the next waiter (and a
  second one cancels it: it toggles);
- a waiter whose client process is killed stays registered on the server and
  swallows the next signal that finds no other waiter;
- one ``-S`` wakes every waiter on the channel.

So a wait never kills a registered waiter when it is the last muxport wait on the
channel: at timeout or cancellation it wakes its own waiter with one ``-S`` (which
also clears waiters killed earlier), and the server keeps nothing for that channel.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Annotated, Any, Literal

import anyio
from muxport import Args, Result, Timeout, Toolbox, ToolContext, ToolError, tool
from muxport.policy import Limits
from pydantic import BeforeValidator, Field

from muxport_manage.common import CHANNEL
from muxport_manage.waiter import Waiter

RETRY = 0.1  # seconds before another wait-for client, after one could not register
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:@%+=,/-]{0,127}")


def _channel(value: Any) -> Any:
    if isinstance(value, str) and not _NAME.fullmatch(value):
        raise ValueError(
            f"channel {value!r} is not a channel name: use 1 to 128 letters, digits and "
            "_ . : @ % + = , / - (not starting with '-'), e.g. build-done"
        )
    return value


Channel = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        pattern=f"^{_NAME.pattern}$",
        description="wait-for channel, e.g. build-done",
    ),
    BeforeValidator(_channel),
]


class WaitArgs(Args):
    channel: Channel
    timeout: Timeout = None
    drain_first: bool = Field(
        default=False,
        description="ignore a signal kept from before",
    )


class ChannelWaits(Toolbox):
    """How many of this server's waits are on each channel right now."""

    def __init__(self) -> None:
        self.waits: Counter[str] = Counter()


class WaitAnswer(Result):
    text_omits = frozenset({"effective_timeout"})  # what the call named (docs/answers.md)
    outcome: Literal["signalled", "timed_out", "server_gone"]
    seconds: float = Field(description="seconds waited")
    effective_timeout: float = Field(default=Limits.DEFAULT_WAIT, description="the timeout used")


class SignalArgs(Args):
    channel: Channel


class SignalAnswer(Result):
    sent: bool = Field(description="true: tmux took the signal")


@tool(CHANNEL, title="Wait for a channel")
async def wait_for_channel(
    box: ChannelWaits, ctx: ToolContext, args: WaitArgs
) -> WaitAnswer:
    """Wait until `tmux wait-for -S <channel>` runs, or the timeout passes.

    End your commands with `; tmux wait-for -S <channel>`.
    """
    budget = Limits.wait(args.timeout)
    start = time.monotonic()
    waits = box.waits
    waits[args.channel] += 1
    outcome: Literal["signalled", "timed_out", "server_gone"] = "timed_out"
    note: str | None = None  # as they stay when muxport's ending cuts the wait short
    try:
        async with ctx.heartbeat(f"channel {args.channel}", budget):
            outcome, note = await _wait(ctx, args, start, start + budget, waits)
    finally:
        waits[args.channel] -= 1
        if waits[args.channel] <= 0:
            del waits[args.channel]
    seconds = round(time.monotonic() - start, 3)
    if outcome == "timed_out" and note is None:
        note = (
            f"no signal on {args.channel} within {budget:g} s; call wait_for_channel again "
            "to keep waiting (a signal sent in between is kept for that call)"
        )
    return WaitAnswer(
        outcome=outcome, seconds=seconds, effective_timeout=budget, note=note
    )


async def _wait(
    ctx: ToolContext, args: WaitArgs, start: float, deadline: float, waits: Counter[str]
) -> tuple[Literal["signalled", "timed_out", "server_gone"], str | None]:
    drain = args.drain_first
    while True:
        waiter = Waiter(ctx, args.channel, lambda: waits[args.channel] > 1, start)
        result = await waiter.run(deadline)
        if result == "pending":
            if drain:
                drain = False  # that signal predates the call: consumed, wait for a new one
                continue
            return "signalled", "the signal was sent before this call; tmux had kept it"
        if result == "failed":  # the client could not register: another, while time is left
            if time.monotonic() >= deadline:
                return "timed_out", None
            await anyio.sleep(RETRY)
            continue
        if result == "lost":
            raise ToolError(
                f"the connection to the tmux server was lost while waiting on {args.channel} "
                "(the ssh connection to its host); a signal sent just then may have been "
                "missed: check what was to signal it, then call wait_for_channel again",
                code="ssh_connection_lost", retryable=True, delivery="observed",
            )
        if result == "gone":
            return "server_gone", (
                "the tmux server stopped while waiting; list_sessions "
                "shows whether a server is running again"
            )
        return result, None


@tool(CHANNEL, title="Signal a channel")
async def signal_channel(ctx: ToolContext, args: SignalArgs) -> SignalAnswer:
    """Run `tmux wait-for -S <channel>`: wake every waiter now (with none, tmux keeps it)."""
    await ctx.tmux.run(("wait-for", "-S", "--", args.channel))
    return SignalAnswer(sent=True)


TOOLS = [wait_for_channel, signal_channel]

"""The table of frame kinds (frames/kinds.py; docs/runs-and-waits.md, "Frame kinds"): a kind
written here, outside the toolset, registers and runs through run_shell_command without an
edit of the driver, the answer or the choice (issue 31)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

import anyio
import pytest
from anyio.abc import Process
from execute_kit import call, run
from muxport import ToolContext
from muxport_execute.frames import kinds
from muxport_execute.frames.base import Markers, extract, quote
from muxport_execute.frames.choose import choose, installation
from muxport_execute.frames.kinds import FrameKind, Order, PaneFacts, Reach
from muxport_execute.frames.strategy import Emit, Ending, Extracted
from muxport_execute.host.input_wait import Reader

pytestmark = pytest.mark.timeout(60)

TAG = ": mxplain;"  # what starts the plain frame's typed line


@dataclass
class PlainSight:
    """The plain frame's view of its run's processes: it sees none reading, and says
    which questions the answer asked it."""

    asked: list[str] = field(default_factory=list)

    def ready(self) -> None:
        self.asked.append("ready")

    async def until_reading(self, ctx: ToolContext) -> Reader:
        self.asked.append("until_reading")
        await anyio.sleep_forever()
        raise AssertionError("never")

    def took_over(self, reading: Reader) -> bool:
        return False

    def foreground_program(self) -> str | None:
        self.asked.append("foreground_program")
        return "vim"  # what the note names a way out of

    def reader_program(self, reading: Reader) -> str | None:
        return None


@dataclass
class PlainStrategy:
    """A frame in one typed line: markers printed around a subshell, completion signalled
    on a tmux channel the frame waits on."""

    order: Order
    markers: Markers = field(default_factory=lambda: Markers(secrets.token_hex(16)))
    ctx: ToolContext | None = None
    waiter: Process | None = None
    sight: PlainSight = field(default_factory=PlainSight)

    @property
    def name(self) -> str:
        return "plain"

    @property
    def channel(self) -> str:
        return f"mxplain-{self.markers.nonce}"

    async def prepare(self, ctx: ToolContext) -> Ending | None:
        self.ctx = ctx
        self.waiter = await ctx.tmux.start_waiter(self.channel)
        return None

    async def send(self, ctx: ToolContext) -> PlainSight:
        half, rest = self.markers.nonce[:16], self.markers.nonce[16:]  # never typed whole
        signal = f"{quote(ctx.tmux.binary)} -S {quote(ctx.tmux.socket_path)} wait-for -S "
        line = (
            f"{TAG} printf '%s%s:s\\n' {half} {rest}; ( {self.order.command} ); "
            f"printf '%s%s:e:%s\\n' {half} {rest} \"$?\"; {signal}{self.channel}"
        )
        await ctx.tmux.run(("send-keys", "-t", self.order.pane_id, "-l", "--", line + "\r"))
        return self.sight

    async def follow(self, emit: Emit) -> Ending:
        assert self.ctx is not None and self.waiter is not None
        emit("started")
        with anyio.fail_after(30):
            await self.waiter.wait()
        self.waiter = None
        shown = await self.ctx.tmux.run(
            ("capture-pane", "-p", "-J", "-S", "-", "-t", self.order.pane_id))
        found = self.extract(shown.stdout.splitlines())
        assert found.ended
        return Ending("completed", found.status, found.lines, framed=True, lines_missed=False)

    def extract(self, capture: list[str]) -> Extracted:
        return extract(self.markers, capture)

    def scrub(self, rows: list[str]) -> list[str]:
        return self.markers.scrub(rows)

    async def close(self) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and self.ctx is not None:
            await self.ctx.tmux.wake_waiter(self.channel, waiter)


built: list[PlainStrategy] = []


def _build(order: Order) -> PlainStrategy:
    built.append(PlainStrategy(order))
    return built[-1]


@pytest.fixture
def plain_kind() -> Iterator[list[str]]:
    """Registers the plain kind for the panes the test lists (ranked before the built-in
    kinds); removed afterwards."""
    panes: list[str] = []

    def applies(pane: PaneFacts) -> Reach | None:
        mine = pane.pane_id in panes or pane.requested == "plain"
        return Reach("plain", pane.shell, True) if mine and pane.shell == "posix" else None

    kinds.register(FrameKind("plain", applies, _build, line=re.escape(TAG) + " printf ", rank=0,
                             facts=lambda: {"how": "one typed line; tmux wait-for"}))
    built.clear()
    try:
        yield panes
    finally:
        kinds.unregister("plain")


async def test_a_kind_written_outside_registers_and_runs(
    plain_kind, mcp_client, shell_pane, tmux_server
):
    mine, other = shell_pane("bash").pane_id, shell_pane("bash").pane_id
    plain_kind.append(mine)
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        done = await run(client, mine, "echo hi; printf 'two\\n'; exit 3")
        assert (done["frame"], done["outcome"], done["exit_status"], done["output"]) == (
            "plain", "completed", 3, ["hi", "two"])
        assert done["framed"] is True and done["lines_missed"] is False
        # the answer asks the kind's own view of the run's processes
        slow = await run(client, mine, "sleep 1; echo late", timeout=0.3)
        assert (slow["frame"], slow["outcome"]) == ("plain", "timed_out")
        assert built[-1].sight.asked == ["ready", "until_reading", "foreground_program"]
        assert "vim is" in slow["note"]  # the way out of the program the view named
        late = await call(client, "wait_for_run", {"run_id": slow["run_id"]})
        assert (late["frame"], late["output"]) == ("plain", ["late"])
        # where it does not apply, the built-in kinds still take the pane
        assert (await run(client, other, "echo local"))["frame"] == "local"
    assert "plain" in installation()["frames"]


def test_a_kind_s_line_patterns_and_its_name_come_and_go_with_it(plain_kind):
    row = f"$ {TAG} printf '%s%s:s\\n' 0123 4567"
    plain_kind.append("%9")
    assert choose("plain", "bash", "1", "%1", far_host=None) == Reach("plain", "posix", True)
    assert kinds.other_frame().search(row)  # another run's extract stops at its line
    assert choose("auto", "bash", "1", "%9", far_host=None).frame == "plain"
    kinds.unregister("plain")
    assert not kinds.other_frame().search(row)
    assert "plain" not in installation()["frames"]

"""The ``clock`` toolset: an example of a third-party muxport toolset with one tool.

Everything comes from ``muxport``: the declaration decorator and its capability preset,
the argument and answer bases, the exact-id type and ``apply`` on the context's transport.
"""

from __future__ import annotations

from muxport import Args, Capability, PaneId, Result, ToolContext, ToolRegistry, hookimpl, tool
from muxport.formats import apply


class ShowClockArgs(Args):
    pane_id: PaneId


class ClockShown(Result):
    pane_id: str
    in_mode: bool
    mode: str


MODE = {"in_mode": "pane_in_mode", "mode": "pane_mode"}  # field -> tmux format variable


# CHANGE with only the "change" effect: the answer is read back, but nothing is observed
# beyond the pane the tool changed.
@tool(Capability.CHANGE.replace(tmux_effects=["change"]), title="Show clock")
async def show_clock(ctx: ToolContext, args: ShowClockArgs) -> ClockShown:
    """Put one pane into tmux's clock mode (a big clock until a key is pressed in it).

    The pane's program keeps running underneath; any key pressed in the pane, or
    sent to it, leaves clock mode.
    """
    # apply: enter the mode and read the pane back in ONE invocation (one moment).
    return await apply(
        ctx.tmux, ("clock-mode", "-t", args.pane_id), ClockShown, MODE, args.pane_id,
        pane_id=args.pane_id,
        note="press any key in the pane (or send one with send_keys) to leave clock mode",
    )


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    registry.add(show_clock)

"""The ``clock`` toolset: an example of a third-party muxport toolset with one tool.

Everything comes from ``muxport``: the declaration decorator, the argument and
answer bases, the exact-id type and the transport on the context.
"""

from __future__ import annotations

from muxport import CHANGE, Args, PaneId, Result, ToolContext, ToolRegistry, hookimpl, tool


class ShowClockArgs(Args):
    pane_id: PaneId


class ClockShown(Result):
    pane_id: str
    in_mode: bool
    mode: str


# CHANGE with only the "change" effect: the answer is read back, but nothing is observed
# beyond the pane the tool changed.
@tool(CHANGE.replace(tmux_effects=["change"]), title="Show clock")
async def show_clock(ctx: ToolContext, args: ShowClockArgs) -> ClockShown:
    """Put one pane into tmux's clock mode (a big clock until a key is pressed in it).

    The pane's program keeps running underneath; any key pressed in the pane, or
    sent to it, leaves clock mode.
    """
    # Entering the mode and reading it back in ONE invocation describes one moment.
    result = await ctx.tmux.run(
        ("clock-mode", "-t", args.pane_id),
        ("display-message", "-p", "-t", args.pane_id, "#{pane_in_mode} #{pane_mode}"),
    )
    in_mode, _, mode = result.stdout.strip().partition(" ")
    return ClockShown(
        pane_id=args.pane_id,
        in_mode=in_mode == "1",
        mode=mode,
        note="press any key in the pane (or send one with send_keys) to leave clock mode",
    )


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    registry.add(show_clock)

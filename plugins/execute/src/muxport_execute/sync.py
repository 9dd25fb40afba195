"""set_synchronize_panes: the window option that copies keys to every pane of a window."""

from __future__ import annotations

from muxport import Args, Capability, Result, ToolContext, WindowId, tool
from pydantic import Field


class SyncArgs(Args):
    window_id: WindowId
    enabled: bool = Field(description="true: keys to one pane reach all synchronized")


class SyncSet(Result):
    window_id: str
    enabled: bool
    synchronized_pane_ids: list[str] = Field(
        description="panes whose synchronize-panes is on now"
    )


@tool(
    Capability.CHANGE.replace(
        tmux_effects=["change"], amplifies_future_input=True, idempotent=True
    ),
    title="Set synchronize-panes",
)
async def set_synchronize_panes(ctx: ToolContext, args: SyncArgs) -> SyncSet:
    """Turn a window's synchronize-panes on or off: later keys reach all its panes, or one.

    The answer lists the synchronized panes (a pane's own value wins).
    """
    value = "on" if args.enabled else "off"
    out = await ctx.tmux.run(
        ("set-option", "-w", "-t", args.window_id, "synchronize-panes", value),
        ("list-panes", "-t", args.window_id, "-F", "#{pane_id} #{synchronize-panes}"),
    )
    states = [line.split(" ") for line in out.lines if " " in line]
    synced = [pane for pane, on in states if on == "1"]
    overridden = [pane for pane, on in states if (on == "1") != args.enabled]
    note = None
    if overridden:
        panes = ", ".join(overridden)
        note = f"pane-level synchronize-panes overrides the window value for {panes}"
    return SyncSet(window_id=args.window_id, enabled=args.enabled, synchronized_pane_ids=synced,
                   note=note)


TOOLS = [set_synchronize_panes]

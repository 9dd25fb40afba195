"""resize_window, resize_pane: sizes in cells, and an answer that says what tmux did."""

from __future__ import annotations

from muxport import Args, PaneId, ToolContext, WindowId, tool
from muxport.formats import Pane, Window, apply, fmt, parse, records
from pydantic import model_validator

from muxport_manage.common import NAMED, Cells
from muxport_manage.naming import PaneAnswer, WindowAnswer

SIZE = {"width": "pane_width", "height": "pane_height"}


class ResizeArgs(Args):
    width: Cells = None
    height: Cells = None

    @model_validator(mode="after")
    def something_to_do(self) -> ResizeArgs:
        if self.width is None and self.height is None:
            raise ValueError("pass width, height or both (in cells)")
        return self


class ResizeWindowArgs(ResizeArgs):
    window_id: WindowId


class ResizePaneArgs(ResizeArgs):
    pane_id: PaneId


def flags(args: ResizeArgs) -> list[str]:
    out: list[str] = []
    if args.width is not None:
        out += ["-x", str(args.width)]
    if args.height is not None:
        out += ["-y", str(args.height)]
    return out


def shortfall(args: ResizeArgs, width: int, height: int) -> list[str]:
    """The requested dimensions tmux did not grant."""
    missed = []
    if args.width is not None and width != args.width:
        missed.append(f"width {width} (asked {args.width})")
    if args.height is not None and height != args.height:
        missed.append(f"height {height} (asked {args.height})")
    return missed


@tool(NAMED, title="Resize a window")
async def resize_window(ctx: ToolContext, args: ResizeWindowArgs) -> WindowAnswer:
    """Set one window's size in cells (omitted: unchanged); its window-size becomes manual."""
    resize = ("resize-window", "-t", args.window_id, *flags(args))
    window = await apply(ctx.tmux, resize, WindowAnswer, Window.FIELDS, args.window_id)
    missed = shortfall(args, window.width, window.height)
    if missed:
        window.note = "tmux set " + " and ".join(missed)
    return window


@tool(NAMED, title="Resize a pane")
async def resize_pane(ctx: ToolContext, args: ResizePaneArgs) -> PaneAnswer:
    """Set one pane's size in cells; the only pane of a window keeps the window's size."""
    out = await ctx.tmux.run(
        ("display-message", "-p", "-t", args.pane_id, fmt(SIZE)),
        ("resize-pane", "-t", args.pane_id, *flags(args)),
        ("display-message", "-p", "-t", args.pane_id, fmt(Pane.FIELDS)),
    )
    before, after = records(out.stdout)
    old_width, old_height = (int(v) for v in before)
    pane = parse(
        PaneAnswer, Pane.FIELDS, after, caller=ctx.caller.marks(args.pane_id)
    )
    missed = shortfall(args, pane.width, pane.height)
    if (pane.width, pane.height) == (old_width, old_height) and missed:
        pane.note = (
            f"tmux did not change the size ({pane.width}x{pane.height}): no neighbour "
            "to take the space from or give it to; resize_window resizes the whole window"
        )
    elif missed:
        pane.note = (
            "tmux set " + " and ".join(missed) + " (limited by the window and its other panes)"
        )
    return pane


TOOLS = [resize_window, resize_pane]

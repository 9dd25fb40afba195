"""split_window and respawn_pane: start a pane's configured process, no command payload."""

from __future__ import annotations

from typing import Literal

from muxport import Args, Capability, PaneId, Refused, Result, ToolContext, tool
from muxport.formats import Pane, fmt, literal, records
from pydantic import Field

from muxport_execute.naming import StartDirectory, checked_directory, unchecked_note

SPLIT = {"below": ("-v",), "above": ("-v", "-b"), "right": ("-h",), "left": ("-h", "-b")}


class SplitArgs(Args):
    pane_id: PaneId
    direction: Literal["below", "above", "left", "right"] = Field(
        default="below", description="where the new pane goes"
    )
    percent: int = Field(default=50, ge=1, le=99, description="its share of the space")
    start_directory: StartDirectory | None = None


class PaneCreated(Pane, Result):
    pass


@tool(
    Capability.SPAWN,
    title="Split window",
    input_literalization={"start_directory": "double-hash-once"},
)
async def split_window(ctx: ToolContext, args: SplitArgs) -> PaneCreated:
    """Split a pane into a new one running the configured shell; focus stays where it was.

    No command is accepted.
    """
    directory = await checked_directory(ctx.tmux, args.start_directory)
    command = ["split-window", "-d", "-P", "-F", fmt(Pane.FIELDS),
               "-t", args.pane_id, *SPLIT[args.direction], "-l", f"{args.percent}%"]
    if directory is not None:
        command += ["-c", literal(directory)]
    out = await ctx.tmux.run(command)
    pane = Pane.read(records(out.stdout)[0], ctx.caller)
    return PaneCreated(**pane.model_dump(), note=unchecked_note(ctx.tmux, directory))


class RespawnArgs(Args):
    pane_id: PaneId
    start_directory: StartDirectory | None = None


class Respawned(Result):
    pane_id: str
    restarted: bool


RESPAWN = Capability.SPAWN.replace(
    tmux_effects=["observe", "change", "delete"], may_return_untrusted_content=False
)


@tool(RESPAWN, title="Respawn pane", input_literalization={"start_directory": "double-hash-once"})
async def respawn_pane(ctx: ToolContext, args: RespawnArgs) -> Respawned:
    """Restart a pane's process (killing the running one), e.g. to revive a dead pane.

    It starts the command the pane was made with; muxport's own pane is refused.
    """
    if not ctx.caller.proven or ctx.caller.marks(args.pane_id):
        raise Refused(
            f"pane {args.pane_id} is (or may be) the pane muxport runs in; respawning it would "
            "kill muxport itself; target another pane (list_panes marks the caller)",
            data={"reason": "caller", "pane_id": args.pane_id},
        )
    directory = await checked_directory(ctx.tmux, args.start_directory)
    command = ["respawn-pane", "-k", "-t", args.pane_id]
    if directory is not None:
        command += ["-c", literal(directory)]
    await ctx.tmux.run(command)
    return Respawned(pane_id=args.pane_id, restarted=True,
                     note=unchecked_note(ctx.tmux, directory))


TOOLS = [split_window, respawn_pane]

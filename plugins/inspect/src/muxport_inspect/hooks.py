"""show_hooks: the commands tmux runs on events, by hook name."""

from __future__ import annotations

import re

from muxport import Args, Capability, InvalidArgument, Result, ToolContext, tool
from pydantic import Field

from muxport_inspect.common import scope_of_target, scoped_target, target_missing
from muxport_inspect.config import ScopeArg


class HooksArgs(Args):
    scope: ScopeArg | None = None
    target: str | None = Field(
        default=None,
        max_length=16,
        description="$, @ or % id (gives the scope)",
    )
    name: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[a-z][a-z0-9-]*$",
        description="one hook, e.g. after-new-window",
    )


class Hooks(Result):
    scope: str
    target: str | None
    count: int
    hooks: dict[str, list[str]] = Field(description="hook name -> its commands, in index order")


HOOK_LINE = re.compile(r"^([a-z0-9-]+)\[([0-9]+)\] (.*)$")


@tool(Capability.READ.replace(output_classes=["configured-command"]), title="Show hooks")
async def show_hooks(ctx: ToolContext, args: HooksArgs) -> Hooks:
    """List the commands tmux hooks run (global, or a session's, window's or pane's)."""
    scope = args.scope or (scope_of_target(args.target) if args.target else None) or "server"
    target = scoped_target(scope, args.target, "show_hooks")
    name = [args.name] if args.name else []
    if target:
        flag = {"session": [], "window": ["-w"], "pane": ["-p"]}[scope]
        commands = [("show-hooks", *flag, "-t", target, *name)]
    elif name:
        commands = [("show-hooks", "-g", *name)]  # tmux finds a named hook at either level
    else:
        commands = [("show-hooks", "-g"), ("show-hooks", "-gw")]
    hooks: dict[str, list[str]] = {}
    for command in commands:
        out = await ctx.tmux.run(command, check=False)
        if out.returncode != 0 and target and target_missing(out.stderr):
            raise await ctx.tmux.missing(scope, target)
        if out.returncode != 0 and "invalid option" in out.stderr:
            continue  # a session hook asked at window scope (or the reverse)
        if out.returncode != 0:
            raise ctx.tmux.failure(out)
        for line in out.stdout.splitlines():
            found = HOOK_LINE.match(line)
            if found:
                hooks.setdefault(found.group(1), []).append(found.group(3))
    if args.name and not hooks and not await _hook_exists(ctx, args.name):
        raise InvalidArgument(f"tmux has no hook {args.name!r}; omit name to list every set hook")
    return Hooks(scope=scope, target=target, count=len(hooks), hooks=hooks)


async def _hook_exists(ctx: ToolContext, name: str) -> bool:
    out = await ctx.tmux.run(("show-hooks", "-g", name), ("show-hooks", "-gw", name), check=False)
    return out.returncode == 0 or name in out.stdout.split()


TOOLS = [show_hooks]

"""Configuration reads: format variables by name, options, environment, hooks.

No free-form format string is accepted: ``get_tmux_variables`` builds ``#{name}`` from
names that match ``[A-Za-z][A-Za-z0-9_]*``, so nothing a client sends is expanded as a
format (``#()`` would run a shell command).
"""

from __future__ import annotations

import secrets
from typing import Annotated, Literal

from muxport import Args, InvalidArgument, PaneId, Result, ToolContext, tool
from muxport.formats import fmt, records
from muxport.policy import Limits
from pydantic import BeforeValidator, Field

from muxport_inspect.common import (
    CONFIGURED,
    scoped_target,
    target_missing,
)

MAX_CHARS = Limits.MAX_CHARS

VariableName = Annotated[
    str, Field(min_length=1, max_length=128, pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
]


class VariablesArgs(Args):
    names: list[VariableName] = Field(
        min_length=1,
        max_length=32,
        description="e.g. pane_current_command, session_name",
    )
    pane_id: PaneId | None = Field(default=None, description="the pane whose context is used")


class Variables(Result):
    values: dict[str, str] = Field(description="name -> value; unknown names give an empty string")


@tool(CONFIGURED, title="Get tmux variables",
      input_literalization={"names": "validated-variable-name"})
async def get_tmux_variables(ctx: ToolContext, args: VariablesArgs) -> Variables:
    """Read named tmux format variables (no free-form formats)."""
    target = ["-t", args.pane_id] if args.pane_id else []
    out = await ctx.tmux.run(("display-message", "-p", *target, fmt(("pane_id", *args.names))))
    found, *parts = (records(out.stdout) or [[""]])[0]
    if args.pane_id and found != args.pane_id:
        raise await ctx.tmux.missing("pane", args.pane_id)
    values: dict[str, str] = {}
    room = MAX_CHARS
    clipped = []
    for name, value in zip(args.names, parts, strict=False):
        if len(value) > room:
            value, room = value[len(value) - room :] if room else "", 0
            clipped.append(name)
        else:
            room -= len(value)
        values[name] = value
    note = None
    if clipped:
        note = f"values cut to their last characters by the {MAX_CHARS}-character budget: {clipped}"
    elif not args.pane_id:
        note = "read without a pane context; pass pane_id for pane and window variables"
    return Variables(values=values, note=note)


Scope = Literal["server", "session", "window", "pane"]


def _scope(value: object) -> object:
    if isinstance(value, str):
        value = value.strip().lower()
        return "server" if value == "global" else value
    return value


ScopeArg = Annotated[
    Scope, BeforeValidator(_scope), Field(description="global means server")
]
OPTION_NAME = r"^@?[A-Za-z0-9][A-Za-z0-9_@-]*(\[[0-9]{1,5}\])?$"


class OptionArgs(Args):
    name: str = Field(
        min_length=1,
        max_length=128,
        pattern=OPTION_NAME,
        description="e.g. history-limit or @my-option",
    )
    scope: ScopeArg
    target: str | None = Field(
        default=None,
        max_length=16,
        description="$, @ or % id; unless scope is server",
    )
    effective: bool = Field(default=True, description="with values inherited")


class OptionValue(Result):
    scope: str
    target: str | None
    name: str
    value: str | None = Field(
        description="null when the option is not set (effective: at no scope)"
    )
    set: bool = Field(description="the option has a value at this scope (or, effective, anywhere)")
    inherited: bool = Field(description="the value comes from a wider scope")


SCOPE_FLAG = {"server": "-g", "session": "", "window": "-w", "pane": "-p"}


def unknown_option(name: str, scope: str, err: str) -> InvalidArgument:
    return InvalidArgument(
        f"tmux has no option {name!r} at scope {scope} ({err}); check the spelling "
        "(tmux's man page lists options) or try another scope"
    )


def not_set(args: OptionArgs, target: str | None, note: str | None) -> OptionValue:
    """The answer for an option that has no value at this scope."""
    return OptionValue(
        scope=args.scope, target=target, name=args.name, value=None, set=False,
        inherited=False, note=note,
    )


@tool(CONFIGURED, title="Show option")
async def show_option(ctx: ToolContext, args: OptionArgs) -> OptionValue:
    """Read one tmux option at server, session, window or pane scope."""
    target = scoped_target(args.scope, args.target, "show_option")
    flags = [SCOPE_FLAG[args.scope]] if SCOPE_FLAG[args.scope] else []
    where = ["-t", target] if target else []
    inherit = ["-A"] if args.effective and target else []
    marker = f"muxport-{secrets.token_hex(8)}"
    # the named form marks inherited values with "*"; the -v form gives the raw value
    out = await ctx.tmux.run(
        ("show-options", *flags, *inherit, *where, args.name),
        ("display-message", "-p", marker),
        ("show-options", *flags, *inherit, "-v", *where, args.name),
        check=False,
    )
    if out.returncode != 0:
        if target and target_missing(out.stderr):
            raise await ctx.tmux.missing(args.scope, target)
        if "invalid option" not in out.stderr:
            raise ctx.tmux.failure(out)
        if not args.name.startswith("@"):
            raise unknown_option(args.name, args.scope, out.stderr.strip())
        return not_set(args, target, "the user option is not set at this scope")
    named, _, raw = out.stdout.partition(marker + "\n")
    keys = [line.split(" ", 1)[0] for line in named.splitlines() if line]
    if not keys:
        hint = None if args.effective else "pass effective: true to see the inherited value"
        return not_set(args, target, hint)
    value = raw[:-1] if raw.endswith("\n") else raw
    return OptionValue(
        scope=args.scope,
        target=target,
        name=args.name,
        value=value[-MAX_CHARS:],
        set=True,
        inherited=all(key.endswith("*") for key in keys),
    )


TOOLS = [get_tmux_variables, show_option]

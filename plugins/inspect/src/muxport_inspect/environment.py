"""show_environment: the variables a session (or the global environment) gives new panes."""

from __future__ import annotations

import re

from muxport import Args, Capability, Result, SessionId, ToolContext, tool
from muxport.formats import undo_name_dollar
from muxport.policy import Limits
from pydantic import Field, model_validator

from muxport_inspect.common import target_missing
from muxport_inspect.listings import session_by_name

MAX_CHARS = Limits.MAX_CHARS


class EnvironmentArgs(Args):
    session_id: SessionId | None = None
    session_name: str | None = Field(
        default=None, max_length=256, description="instead of session_id"
    )

    @model_validator(mode="after")
    def one_selector(self) -> EnvironmentArgs:
        if self.session_id and self.session_name:
            raise ValueError("pass session_id or session_name, not both")
        return self


class Environment(Result):
    session_id: str | None = Field(description="null for the global environment")
    count: int
    variables: dict[str, str]
    unset: list[str] = Field(description="names removed from this environment (tmux's -NAME)")


ENV_ENTRY = re.compile(r'unset ([^;\n]*);\n|([^=\n]*)="((?:[^"\\]|\\.)*)"; export \2;\n', re.S)
SHELL_ESCAPE = re.compile(r"\\(.)", re.S)


@tool(Capability.READ.replace(output_classes=["process-environment"]), title="Show environment")
async def show_environment(ctx: ToolContext, args: EnvironmentArgs) -> Environment:
    """Read a session's environment (or the global one): variables and removed names."""
    session_id = args.session_id
    if args.session_name is not None:
        session_id = await session_by_name(ctx, args.session_name)
    where = ["-t", session_id] if session_id else ["-g"]
    out = await ctx.tmux.run(("show-environment", "-s", *where), check=False)
    if out.returncode != 0:
        if session_id and target_missing(out.stderr):
            raise await ctx.tmux.missing("session", session_id)
        raise ctx.tmux.failure(out)
    variables: dict[str, str] = {}
    unset: list[str] = []
    used = 0
    for entry in ENV_ENTRY.finditer(out.stdout):
        if entry.group(1) is not None:
            unset.append(entry.group(1))
            continue
        value = SHELL_ESCAPE.sub(r"\1", undo_name_dollar(entry.group(3)))
        used += len(entry.group(2)) + len(value)
        if used > MAX_CHARS:
            break
        variables[entry.group(2)] = value
    note = None
    if used > MAX_CHARS:
        note = f"the environment exceeds {MAX_CHARS} characters; later variables were left out"
    return Environment(
        session_id=session_id, count=len(variables), variables=variables, unset=unset, note=note
    )


TOOLS = [show_environment]

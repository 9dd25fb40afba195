"""create_session and create_window: new panes running the configured process, no payload.

Every name and directory goes through ``literal()`` (tmux format-expands them, so
``#(...)`` would run a command); ``--`` is not needed: ``-s``/``-n``/``-c`` take
the next item as their value whatever it starts with.
"""

from __future__ import annotations

from typing import Literal

from muxport import (
    Args,
    Capability,
    InvalidArgument,
    Result,
    SessionId,
    TmuxFailed,
    ToolContext,
    tool,
)
from muxport.formats import Session, Window, fmt, literal, parse, records
from pydantic import Field, model_validator

from muxport_execute.naming import (
    SessionName,
    StartDirectory,
    WindowName,
    checked_directory,
    unchecked_note,
)

IDS = {"window_id": "window_id", "pane_id": "pane_id"}


class CreateSessionArgs(Args):
    session_name: SessionName | None = None
    window_name: WindowName | None = None
    start_directory: StartDirectory | None = None
    width: int | None = Field(default=None, ge=2, le=1000, description="columns (with height)")
    height: int | None = Field(default=None, ge=2, le=1000, description="rows (with width)")

    @model_validator(mode="after")
    def size_together(self) -> CreateSessionArgs:
        if (self.width is None) != (self.height is None):
            raise ValueError("pass width and height together, or neither")
        return self


class SessionCreated(Session, Result):
    window_id: str
    pane_id: str


def named(flag: str, value: str | None) -> list[str]:
    return [flag, literal(value)] if value is not None else []


LITERAL: Literal["double-hash-once"] = "double-hash-once"
SESSION_LITERAL = dict.fromkeys(("session_name", "window_name", "start_directory"), LITERAL)
WINDOW_LITERAL = dict.fromkeys(("window_name", "start_directory"), LITERAL)


@tool(Capability.SPAWN, title="Create session", input_literalization=SESSION_LITERAL)
async def create_session(ctx: ToolContext, args: CreateSessionArgs) -> SessionCreated:
    """Create a detached session running the configured shell; names are kept literally.

    No command is accepted. Starts the tmux server if none runs.
    """
    directory = await checked_directory(ctx.tmux, args.start_directory)
    fields = {**Session.FIELDS, **IDS}
    command = ["new-session", "-d", "-P", "-F", fmt({**fields, **SIZE})]
    command += named("-s", args.session_name) + named("-n", args.window_name)
    command += named("-c", directory)
    if args.width is not None and args.height is not None:
        command += ["-x", str(args.width), "-y", str(args.height)]
    try:
        out = await ctx.tmux.run(command)
    except TmuxFailed as failure:
        if "duplicate session" in failure.message:
            raise InvalidArgument(
                f"a session named {args.session_name!r} already exists; pass another "
                "session_name (list_sessions shows the names in use)"
            ) from None
        raise
    values = records(out.stdout)[0]
    created = parse(SessionCreated, fields, values)
    if args.width is not None and args.height is not None:
        await sized(ctx, created.window_id, (args.width, args.height), values[len(fields):])
    created.note = unchecked_note(ctx.tmux, directory)
    return created


SIZE = {"window_width": "window_width", "window_height": "window_height"}


async def sized(ctx: ToolContext, window_id: str, size: tuple[int, int], got: list[str]) -> None:
    """Give a new session's window the size asked for where tmux did not: 3.2a sizes it from
    the creating client (80x23) despite ``-x``/``-y`` (docs/tmux-facts.md, "Versions").
    ``resize-window`` pins the window's size (``window-size manual``): unsetting that
    leaves it following the session's ``default-size``, as a session created at its size."""
    if got == [str(size[0]), str(size[1])]:
        return
    await ctx.tmux.run(
        ("resize-window", "-t", window_id, "-x", str(size[0]), "-y", str(size[1])),
        ("set-option", "-w", "-u", "-t", window_id, "window-size"),
    )


class CreateWindowArgs(Args):
    session_id: SessionId
    window_name: WindowName | None = None
    start_directory: StartDirectory | None = None
    attach: bool = Field(default=False, description="make it current")
    direction: Literal["before", "after"] | None = Field(
        default=None,
        description="default: next free index",
    )


class WindowCreated(Window, Result):
    pane_id: str


@tool(Capability.SPAWN, title="Create window", input_literalization=WINDOW_LITERAL)
async def create_window(ctx: ToolContext, args: CreateWindowArgs) -> WindowCreated:
    """Create a window running the configured shell; not made current unless attach.

    No command is accepted; the name is kept literally.
    """
    directory = await checked_directory(ctx.tmux, args.start_directory)
    fields = {**Window.FIELDS, "pane_id": "pane_id"}
    command = ["new-window", "-P", "-F", fmt(fields), "-t", f"{args.session_id}:"]
    if not args.attach:
        command.append("-d")
    if args.direction:
        command.append("-a" if args.direction == "after" else "-b")
    command += named("-n", args.window_name) + named("-c", directory)
    out = await ctx.tmux.run(command)
    created = parse(WindowCreated, fields, records(out.stdout)[0])
    created.note = unchecked_note(ctx.tmux, directory)
    return created


TOOLS = [create_session, create_window]

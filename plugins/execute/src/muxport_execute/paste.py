"""paste_text: text through a private tmux buffer that never outlives the call."""

from __future__ import annotations

import uuid

import anyio
from muxport import Args, Capability, PaneId, Result, ToolContext, tool
from muxport.policy import check_input
from pydantic import Field, field_validator

from muxport_execute.frames.typed_buffer import chunks
from muxport_execute.run.table import RunTable

MAX_TEXT_BYTES = 1_048_576
# One tmux command line must stay under 16 KiB; larger text is appended in pieces
# (frames/typed_buffer.chunks).


class PasteArgs(Args):
    pane_id: PaneId
    text: str = Field(min_length=1, max_length=MAX_TEXT_BYTES,
                      description="a newline is Enter; at most 1 MiB")
    enter: bool = Field(default=False, description="press Enter after")

    @field_validator("text")
    @classmethod
    def fits(cls, value: str) -> str:
        if len(value.encode()) > MAX_TEXT_BYTES:
            raise ValueError(f"text is over {MAX_TEXT_BYTES} bytes in UTF-8; paste it in parts")
        return value


class Pasted(Result):
    pane_id: str
    characters: int = Field(description="characters pasted (without enter's)")
    lines: int


@tool(Capability.INPUT, title="Paste text")
async def paste_text(runs: RunTable, ctx: ToolContext, args: PasteArgs) -> Pasted:
    """Paste text into one pane only, through a private tmux buffer deleted afterwards.

    Refused as send_keys is; nothing pasted.
    """
    shown = args.text if len(args.text) <= 300 else args.text[:300] + "…"
    await check_input(ctx, args.pane_id, paste=True,
                      what=f"a paste of {len(args.text)} characters ({shown!r})")
    name = f"muxport-paste-{uuid.uuid4().hex}"
    pieces = list(chunks(args.text + ("\n" if args.enter else "")))
    pasted = False
    try:
        for index, piece in enumerate(pieces):
            command = ("set-buffer", "-b", name, *(("-a",) if index else ()), "--", piece)
            if index < len(pieces) - 1:
                await ctx.tmux.run(command)
            else:  # the last piece and the paste in one invocation: no gap between them
                await ctx.tmux.run(command, ("paste-buffer", "-d", "-b", name, "-t", args.pane_id))
        pasted = True
        runs.pending.pasted(args.pane_id, args.text, args.enter)
    finally:
        if not pasted:  # failed or cancelled (client gone): the buffer must not outlive the call
            with anyio.CancelScope(shield=True):
                await ctx.tmux.run(("delete-buffer", "-b", name), check=False)
    lines = len(args.text.splitlines())
    return Pasted(pane_id=args.pane_id, characters=len(args.text), lines=lines)


TOOLS = [paste_text]

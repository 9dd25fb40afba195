"""Capability rows (``_meta["muxport/capability"]``) and the ``tmux://capabilities`` report.

docs/plugin-contract.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from muxport._internal.declare import ToolSpec, input_schema, output_schema

META_KEY = "muxport/capability"
RESOURCE_URI = "tmux://capabilities"

# tmux runs after-* hooks even after list-sessions: no harmlessness claim is made here;
# the row is the precise disclosure.
CONSERVATIVE = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}

OPENERS = {
    "pane-command": "Runs a shell command in a pane with your user's permissions.",
    "pane-input": "Sends input to a pane's program; a shell that receives it runs it with "
    "your user's permissions.",
    "configured-process": "Starts a pane's configured process; accepts no command payload.",
}


def opener(spec: ToolSpec) -> str:
    """The fixed sentence that discloses what kind of tool this is; it goes last."""
    if spec.process_reach in OPENERS:
        return OPENERS[spec.process_reach]
    if "delete" in spec.tmux_effects:
        return "Deletes tmux state; accepts no command payload."
    if spec.tmux_effects == ("observe",):
        if "terminal-content" in spec.output_classes:
            return "Reads pane output; returned content may be sensitive or untrusted."
        return "Inspects tmux state; accepts no client-supplied executable input."
    return "Changes tmux state; accepts no client-supplied executable input."


def describe(spec: ToolSpec) -> str:
    """The description a model reads: what tells the tool apart first, the disclosure last."""
    return f"{spec.description}\n\n{opener(spec)}"


def row(spec: ToolSpec, args: type[BaseModel], toolset: str) -> dict[str, Any]:
    """The capability row of one tool, with its effective input schema."""
    return {
        "name": spec.name,
        "title": spec.title,
        "description": describe(spec),
        "toolset": toolset,
        "process_reach": spec.process_reach,
        "tmux_effects": list(spec.tmux_effects),
        "output_classes": list(spec.output_classes),
        "may_expose_secrets": spec.may_expose_secrets,
        "may_return_untrusted_content": spec.may_return_untrusted_content,
        "amplifies_future_input": spec.amplifies_future_input,
        "annotations": dict(CONSERVATIVE),
        "input_schema": input_schema(args),
        "output_schema": output_schema(spec.result),
        "input_literalization": dict(spec.input_literalization),
        "nested_authority": [],
    }


def report(
    rows: Mapping[str, dict[str, Any]],
    selection: dict[str, Any],
    connection: dict[str, Any],
    caller: dict[str, Any],
    facts: Mapping[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The whole ``tmux://capabilities`` document; static for the life of the process."""
    return {
        "selection": selection,
        "effective_tools": sorted(rows),
        "tools": [rows[name] for name in sorted(rows)],
        "connection": connection,
        "caller": caller,
        "tool_filtering_boundary": "interface-shaping-not-authorization",
        "execution_authority": "tmux-user",
        "toolset_facts": dict(facts or {}),
    }

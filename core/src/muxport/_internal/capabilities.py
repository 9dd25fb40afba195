"""Capability rows (``_meta["muxport/capability"]``), annotations, and the
``tmux://capabilities`` report (docs/plugin-contract.md, docs/client-fit.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from muxport._internal.declare import ToolSpec, input_schema, output_schema

META_KEY = "muxport/capability"
# What the tool definition itself says (name, title, description, schemas, annotations):
# the row in ``_meta`` leaves it out; the report keeps the whole row (docs/client-fit.md).
IN_DEFINITION = ("name", "title", "description", "annotations", "input_schema", "output_schema")
# The annotations say what the kind means to a client; the report keeps the kind itself
# (tools/list stays small: docs/client-fit.md).
IN_REPORT = ("kind",)

# configured-process tools say "no command is accepted" themselves; openWorldHint says
# that they start a process.
OPENERS = {
    "pane-command": "Runs a shell command in a pane with your user's permissions.",
    "pane-input": "Sends input to a pane's program; a shell runs it with your user's permissions.",
}
UNTRUSTED = "Pane output may be sensitive or untrusted."


def describe(spec: ToolSpec) -> str:
    """The description a model reads: what tells the tool apart first, the disclosure a model
    needs beyond the annotations last."""
    reads_screen = spec.tmux_effects == ("observe",) and "terminal-content" in spec.output_classes
    closing = OPENERS.get(spec.process_reach) or (UNTRUSTED if reads_screen else "")
    return f"{spec.description}\n\n{closing}" if closing else spec.description


def is_read_only(spec: ToolSpec) -> bool:
    """Observes tmux only and reaches no process: the tools whose reads the hook check guards."""
    if spec.read_only is not None:
        return spec.read_only
    return spec.tmux_effects == ("observe",) and spec.process_reach == "none"


# Reaches through which the model's own input reaches a process: whatever that process can
# do (a shell: files, the network, other hosts) the tool can do. A configured process
# (create_session, split_window) runs only what the configuration names.
INPUT_REACH = ("pane-input", "pane-command", "host-command")


def hints(spec: ToolSpec) -> dict[str, bool]:
    """The MCP hints, derived from the row (README "What the annotations promise"): from
    what the tool declares (its kind, reach, effects, amplification), never its toolset.

    Destructive: it deletes (or is of kind delete), hands input to a process, or amplifies
    future input; a tool that only adds (a new session, window or pane) is not. Open world:
    it hands the model's input to a process."""
    read_only = is_read_only(spec)
    hands_input = spec.process_reach in INPUT_REACH
    destructive = not read_only and (
        spec.kind == "delete"
        or "delete" in spec.tmux_effects
        or hands_input
        or spec.amplifies_future_input
    )
    return {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": read_only or spec.idempotent,
        "openWorldHint": hands_input,
    }


def row(spec: ToolSpec, args: type[BaseModel], toolset: str) -> dict[str, Any]:
    """The whole capability row of one tool, with its effective input schema."""
    return {
        "name": spec.name,
        "title": spec.title,
        "description": describe(spec),
        "toolset": toolset,
        "kind": spec.kind,
        "process_reach": spec.process_reach,
        "tmux_effects": list(spec.tmux_effects),
        "output_classes": list(spec.output_classes),
        "may_expose_secrets": spec.may_expose_secrets,
        "may_return_untrusted_content": spec.may_return_untrusted_content,
        "amplifies_future_input": spec.amplifies_future_input,
        "annotations": hints(spec),
        "input_schema": input_schema(args),
        "output_schema": output_schema(spec.result),
        "input_literalization": dict(spec.input_literalization),
        "nested_authority": [],
    }


# Left out of ``_meta`` when false or empty (most tools): the report has them all.
WHEN_SET = ("amplifies_future_input", "input_literalization", "nested_authority")


def meta_row(full: Mapping[str, Any]) -> dict[str, Any]:
    """The row as ``_meta`` carries it: only what the tool definition does not say."""
    return {
        key: value
        for key, value in full.items()
        if key not in IN_DEFINITION + IN_REPORT and (value or key not in WHEN_SET)
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

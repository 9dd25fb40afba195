"""The frozen surface: which tools are listed and callable, with their rows and argument models.

Built once at startup from the discovered toolsets and the selection; ``muxport
tools`` prints it without contacting tmux.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from muxport._internal.capabilities import row
from muxport._internal.declare import EFFECT_ORDER, ToolSpec
from muxport._internal.plugins import Toolsets
from muxport._internal.registry import validate_manifest
from muxport._internal.selection import SelectionRequest, resolve


@dataclass
class Surface:
    """Selected tools (``specs``), every known tool (``known``), and what the batch may nest."""

    specs: dict[str, ToolSpec]
    known: dict[str, ToolSpec]
    args: dict[str, type[BaseModel]]
    rows: dict[str, dict[str, Any]]
    nested: dict[str, tuple[str, ...]]
    selection: dict[str, Any] = field(default_factory=dict)


def check_manifest(toolsets: Toolsets, request: SelectionRequest) -> None:
    """Validate every plugin the request could select, before tmux is touched.

    The default is taken as the larger one (a daemon this process created), so the
    check does not wait for the connection. Every registration is checked, not a
    by-name dict, so that two plugins registering one name are caught.
    """
    _, chosen = resolve(request, toolsets.names(), True, False)
    registered = [spec for specs in toolsets.tools.values() for spec in specs]
    involved = {spec.plugin for spec in registered if spec.name in chosen}
    validate_manifest([spec for spec in registered if spec.plugin in involved])


def build(
    toolsets: Toolsets, request: SelectionRequest, created_daemon: bool, custom_config: bool
) -> Surface:
    """Freeze the surface of toolsets that ``app.preflight`` has checked."""
    installed = toolsets.names()
    chosen_sets, chosen = resolve(request, installed, created_daemon, custom_config)
    known = toolsets.specs()
    specs = {name: known[name] for name in chosen}
    nested: dict[str, tuple[str, ...]] = {}
    args: dict[str, type[BaseModel]] = {}
    rows: dict[str, dict[str, Any]] = {}
    for name, spec in specs.items():
        inner = tuple(
            n for n in spec.nested_authority if n in known and n not in request.exclude
        )
        args[name] = (
            spec.args_factory({n: known[n] for n in inner}) if spec.args_factory else spec.args
        )
        rows[name] = row(spec, args[name], spec.toolset)
        if spec.nested_authority:
            nested[name] = inner
            # the batch may do what its nested tools do, and return what they return
            effects = {effect for n in inner for effect in known[n].tmux_effects}
            outputs = {output for n in inner for output in known[n].output_classes}
            rows[name]["nested_authority"] = list(inner)
            rows[name]["tmux_effects"] = sorted(effects, key=EFFECT_ORDER.index)
            rows[name]["output_classes"] = sorted(outputs)
    selection = {
        "source": request.source,
        "toolsets": list(chosen_sets),
        "tools": list(request.tools),
        "exclude_tools": list(request.exclude),
        "default_rule": (
            "all four toolsets on a dedicated daemon this process created; "
            "inspect, manage, execute otherwise"
        ),
        "installed_toolsets": sorted(installed),
        "broken_toolsets": dict(toolsets.broken),
    }
    return Surface(specs, known, args, rows, nested, selection)


def installed_rows(toolsets: Toolsets, surface: Surface) -> list[dict[str, Any]]:
    """Every installed toolset, selected or not, with its version and how many of its tools
    are selected (``doctor``, ``tools --installed``; docs/plugin-contract.md)."""
    rows = []
    for name in sorted(set(toolsets.distributions) | set(toolsets.tools)):
        specs = toolsets.tools.get(name, [])
        rows.append({
            "toolset": name,
            "version": toolsets.versions.get(name, "?"),
            "distribution": toolsets.distributions.get(name, "?"),
            "tools": len(specs),
            "selected_tools": sum(surface.specs.get(spec.name) is spec for spec in specs),
            "broken": toolsets.broken.get(name),
        })
    return rows


def installed_line(row: dict[str, Any]) -> str:
    """One toolset as ``doctor`` prints it: ``0.1.0 (muxport-clock; not selected: 0 of 1
    tools)``."""
    if row["broken"]:
        state = f"broken: {row['broken']}"
    else:
        selected = "selected" if row["selected_tools"] else "not selected"
        state = f"{selected}: {row['selected_tools']} of {row['tools']} tools"
    return f"{row['version']} ({row['distribution']}; {state})"

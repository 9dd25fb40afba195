"""Finding toolsets: entry points in the group ``muxport.toolsets``, loaded through pluggy.

The core never imports a toolset by name; first-party toolsets are found exactly
like a third-party one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import importlib_metadata
import pluggy

from muxport._internal import hookspecs
from muxport._internal.declare import ToolSpec
from muxport._internal.errors import StartupError
from muxport._internal.registry import ToolRegistry

GROUP = "muxport.toolsets"


@dataclass
class Toolsets:
    """The outcome of discovery: tools per toolset, and plugins that failed to load;
    ``distributions`` and ``versions`` name every installed one, broken ones too."""

    tools: dict[str, list[ToolSpec]] = field(default_factory=dict)
    distributions: dict[str, str] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def names(self) -> dict[str, list[str]]:
        return {ts: [spec.name for spec in specs] for ts, specs in self.tools.items()}

    def specs(self) -> dict[str, ToolSpec]:
        return {spec.name: spec for specs in self.tools.values() for spec in specs}


def discover() -> dict[str, tuple[str, str, object]]:
    """Entry-point name -> (distribution name, its version, unloaded entry point)."""
    found: dict[str, tuple[str, str, object]] = {}
    for ep in importlib_metadata.entry_points(group=GROUP):
        dist = ep.dist.name if ep.dist is not None else "?"
        version = ep.dist.version if ep.dist is not None else "?"
        if ep.name in found and found[ep.name][0] != dist:
            raise StartupError(
                f"toolset {ep.name} is provided by two distributions: "
                f"{found[ep.name][0]} and {dist}"
            )
        found[ep.name] = (dist, version, ep)
    return found


def load(extra: dict[str, ModuleType | object] | None = None) -> Toolsets:
    """Import every installed toolset and collect its tools; ``extra`` adds plugins in process."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    result = Toolsets()
    plugins: dict[str, object] = {}
    for name, (dist, version, ep) in discover().items():
        result.distributions[name], result.versions[name] = dist, version
        try:
            plugins[name] = ep.load()  # type: ignore[attr-defined]
        except Exception as exc:  # a broken plugin fails startup only if selected
            result.broken[name] = f"distribution {dist}: {type(exc).__name__}: {exc}"
    for name, plugin in (extra or {}).items():
        plugins[name] = plugin
        result.distributions[name] = f"(in process) {getattr(plugin, '__name__', name)}"
    for name, plugin in plugins.items():
        try:
            pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise StartupError(f"plugin {name}: {exc}") from exc
        registry = ToolRegistry(toolset=name, plugin=name)
        others = [p for p in pm.get_plugins() if p is not plugin]
        pm.subset_hook_caller("register_tools", remove_plugins=others)(registry=registry)
        for facts in pm.subset_hook_caller("report_facts", remove_plugins=others)():
            result.facts.setdefault(name, {}).update(facts or {})
        result.tools[name] = registry.tools  # each stamped with this toolset (ToolRegistry.add)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise StartupError(f"plugin {exc.plugin}: {exc}") from exc
    return result

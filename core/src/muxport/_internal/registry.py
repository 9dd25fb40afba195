"""The registry a plugin fills through ``register_tools``, and the manifest rules
(docs/plugin-contract.md)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Iterable

from muxport._internal.declare import EFFECT_ORDER, Toolbox, ToolSpec, input_schema, spec_of
from muxport._internal.errors import StartupError

SOCKET_WORDS = ("socket", "socket_name", "socket_path")


class ToolRegistry:
    """Collects one plugin's tools, stamped with the plugin's toolset name."""

    def __init__(self, toolset: str, plugin: str) -> None:
        self.toolset = toolset
        self.plugin = plugin
        self.tools: list[ToolSpec] = []

    def add(self, *tools: object, toolset: str | None = None) -> None:
        """Register ``@tool``-declared functions, and ``Toolbox`` classes with every tool
        declared among their methods (``toolset`` defaults to the plugin's)."""
        for item in tools:
            if isinstance(item, type) and issubclass(item, Toolbox):
                methods = [spec_of(m) for _, m in inspect.getmembers(item, inspect.isfunction)]
                for method in filter(None, methods):
                    self._add(dataclasses.replace(method, toolbox=item), toolset)
                continue
            spec = spec_of(item)
            if spec is None:
                raise StartupError(
                    f"plugin {self.plugin}: {getattr(item, '__name__', item)!r} is not "
                    "declared with @muxport.tool"
                )
            self._add(spec, toolset)

    def _add(self, spec: ToolSpec, toolset: str | None) -> None:
        if spec.toolbox is None and len(inspect.signature(spec.func).parameters) == 3:
            raise StartupError(
                f"plugin {self.plugin}: tool {spec.name} takes self: register its Toolbox class"
            )
        self.tools.append(
            dataclasses.replace(spec, toolset=toolset or self.toolset, plugin=self.plugin)
        )


def _violations(spec: ToolSpec) -> Iterable[str]:
    """Every rule of docs/plugin-contract.md that ``spec`` breaks, as sentences."""
    if not spec.name or not spec.name.replace("_", "a").isalnum():
        yield "a tool name is snake_case letters, digits and underscores"
    if not spec.description:
        yield "every tool has a description whose first sentence tells it apart"
    if spec.process_reach == "host-command":
        yield "reach host-command is forbidden"
    if not spec.tmux_effects or list(spec.tmux_effects) != sorted(
        set(spec.tmux_effects), key=EFFECT_ORDER.index
    ):
        yield "effects are a non-empty, ordered subset of observe, change, delete"
    if not spec.output_classes:
        yield "every tool has at least one output class"
    if spec.amplifies_future_input and spec.name != "set_synchronize_panes":
        yield "amplifies_future_input is reserved for set_synchronize_panes"
    if spec.toolset == "inspect" and not spec.nested_authority:
        if spec.process_reach != "none" or spec.tmux_effects != ("observe",):
            yield "inspect tools have reach none and effects exactly [observe]"
    if spec.toolset == "manage" and spec.process_reach != "none":
        yield "manage tools have reach none"
    if spec.toolset == "execute":
        reach_none = spec.name in ("set_synchronize_panes", "wait_for_run")
        if (spec.process_reach == "none") != reach_none:
            yield (
                "execute tools have a reach other than none, "
                "except set_synchronize_panes and wait_for_run"
            )
    if spec.toolset == "teardown" and "delete" not in spec.tmux_effects:
        yield "teardown tools include the delete effect"
    if spec.name in spec.nested_authority:
        yield "nested authority never names the tool itself"
    schema = json.dumps(input_schema(spec.args))
    if any(f'"{word}"' in schema for word in SOCKET_WORDS):
        yield "no input schema offers a socket selector"
    unknown = set(spec.input_literalization) - set(spec.args.model_fields)
    if unknown:
        yield f"literalization names inputs the schema lacks: {sorted(unknown)}"


def validate_manifest(specs: list[ToolSpec]) -> None:
    """Refuse to start on any rule violation, naming the plugin, the tool and the rule."""
    seen: dict[str, ToolSpec] = {}
    names = {spec.name for spec in specs}
    for spec in specs:
        if spec.name in seen:
            raise StartupError(
                f"plugin {spec.plugin}: tool {spec.name} is already registered by plugin "
                f"{seen[spec.name].plugin} (tool names are unique)"
            )
        seen[spec.name] = spec
        for rule in _violations(spec):
            raise StartupError(f"plugin {spec.plugin}: tool {spec.name} breaks a rule: {rule}")
        missing = [n for n in spec.nested_authority if n not in names]
        if spec.nested_authority and len(missing) == len(spec.nested_authority):
            raise StartupError(
                f"plugin {spec.plugin}: tool {spec.name} breaks a rule: nested authority "
                f"names no known tool ({', '.join(missing)})"
            )

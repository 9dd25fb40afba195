"""The registry a plugin fills through ``register_tools``, and the manifest rules
(docs/plugin-contract.md)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable, Iterable

from muxport._internal.declare import (
    EFFECT_ORDER,
    Toolbox,
    ToolSpec,
    input_schema,
    output_schema,
    spec_of,
)
from muxport._internal.errors import StartupError
from muxport._internal.schemas import SchemaShapeError, problems

SOCKET_WORDS = ("socket", "socket_name", "socket_path")

# The rule each kind of tool keeps (docs/plugin-contract.md, "Kinds"): what a tool may do
# follows from the kind it declares, whichever toolset declares it.
KIND_RULES: dict[str, tuple[Callable[[ToolSpec], bool], str]] = {
    "read": (
        lambda s: s.process_reach == "none" and s.tmux_effects == ("observe",),
        "read tools have reach none and effects exactly [observe]",
    ),
    "change": (lambda s: s.process_reach == "none", "change tools have reach none"),
    "execute": (
        lambda s: s.process_reach != "none", "execute tools have a reach other than none"
    ),
    "delete": (lambda s: "delete" in s.tmux_effects, "delete tools include the delete effect"),
}


class ToolRegistry:
    """Collects one plugin's tools, stamped with the plugin's toolset name."""

    def __init__(self, toolset: str, plugin: str) -> None:
        self.toolset = toolset
        self.plugin = plugin
        self.tools: list[ToolSpec] = []

    def add(self, *tools: object) -> None:
        """Register ``@tool``-declared functions, and ``Toolbox`` classes with every tool
        declared among their methods, into this plugin's own toolset (a plugin can never
        put tools into another toolset, a first-party one least of all)."""
        for item in tools:
            if isinstance(item, type) and issubclass(item, Toolbox):
                methods = [spec_of(m) for _, m in inspect.getmembers(item, inspect.isfunction)]
                for method in filter(None, methods):
                    self._add(dataclasses.replace(method, toolbox=item))
                continue
            spec = spec_of(item)
            if spec is None:
                raise StartupError(
                    f"plugin {self.plugin}: {getattr(item, '__name__', item)!r} is not "
                    "declared with @muxport.tool"
                )
            self._add(spec)

    def _add(self, spec: ToolSpec) -> None:
        if spec.toolbox is None and len(inspect.signature(spec.func).parameters) == 3:
            raise StartupError(
                f"plugin {self.plugin}: tool {spec.name} takes self: register its Toolbox class"
            )
        self.tools.append(
            dataclasses.replace(spec, toolset=self.toolset, plugin=self.plugin)
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
    if spec.kind not in KIND_RULES:
        yield f"kind is one of {', '.join(KIND_RULES)}"
    else:
        holds, rule = KIND_RULES[spec.kind]
        if not holds(spec):
            yield rule
    if spec.read_only and spec.kind != "read":
        yield "only a read tool may declare read_only"
    if spec.amplifies_future_input and "change" not in spec.tmux_effects:
        yield "a tool that amplifies future input changes tmux state (effects include change)"
    if spec.name in spec.nested_authority:
        yield "nested authority never names the tool itself"
    try:
        schemas = (input_schema(spec.args), output_schema(spec.result))
    except SchemaShapeError as exc:
        yield f"its schemas need a shape every client accepts: {exc}"
        return
    for problem in problems(schemas[0]) + problems(schemas[1]):
        yield f"schemas use only what every client accepts (^...$ patterns): {problem}"
    schema = json.dumps(schemas[0])
    if any(f'"{word}"' in schema for word in SOCKET_WORDS):
        yield "no input schema offers a socket selector"
    unknown = set(spec.input_literalization) - set(spec.args.model_fields)
    if unknown:
        yield f"literalization names inputs the schema lacks: {sorted(unknown)}"


def validate_manifest(specs: list[ToolSpec]) -> None:
    """Refuse to start on any rule violation, naming the plugin, the tool and the rule."""
    seen: dict[str, ToolSpec] = {}
    known = {spec.name: spec for spec in specs}
    for spec in specs:
        if spec.name in seen:
            raise StartupError(
                f"plugin {spec.plugin}: tool {spec.name} is already registered by plugin "
                f"{seen[spec.name].plugin} (tool names are unique)"
            )
        seen[spec.name] = spec
        for rule in _violations(spec):
            raise StartupError(f"plugin {spec.plugin}: tool {spec.name} breaks a rule: {rule}")
        nested = [known[n] for n in spec.nested_authority if n in known]
        if spec.kind == "read" and any(inner.kind != "read" for inner in nested):
            raise StartupError(
                f"plugin {spec.plugin}: tool {spec.name} breaks a rule: a read tool's nested "
                "authority names only read tools"
            )
        missing = [n for n in spec.nested_authority if n not in known]
        if spec.nested_authority and len(missing) == len(spec.nested_authority):
            raise StartupError(
                f"plugin {spec.plugin}: tool {spec.name} breaks a rule: nested authority "
                f"names no known tool ({', '.join(missing)})"
            )

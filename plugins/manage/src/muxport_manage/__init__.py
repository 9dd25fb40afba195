"""The manage toolset: names, layout, sizes, channels and options; no executable input."""

from muxport import ToolRegistry, hookimpl

from muxport_manage import arranging, channels, naming, options, sizing


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    for module in (naming, arranging, sizing, channels, options):
        for func in module.TOOLS:
            registry.add(func)

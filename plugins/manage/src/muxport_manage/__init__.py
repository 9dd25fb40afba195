"""The manage toolset: names, layout, sizes, channels and options; no executable input."""

from muxport import ToolRegistry, hookimpl

from muxport_manage import arranging, channels, naming, options, sizing


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    registry.add(*naming.TOOLS, *arranging.TOOLS, *sizing.TOOLS, *channels.TOOLS, *options.TOOLS)

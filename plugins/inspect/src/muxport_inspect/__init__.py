"""The inspect toolset: observe tmux, never change it."""

from muxport import ToolRegistry, hookimpl

from muxport_inspect import listings


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    for func in listings.TOOLS:
        registry.add(func)

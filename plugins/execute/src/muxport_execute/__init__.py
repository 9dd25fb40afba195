"""The execute toolset (its tools arrive with their issue)."""

from muxport import ToolRegistry, hookimpl


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    return None

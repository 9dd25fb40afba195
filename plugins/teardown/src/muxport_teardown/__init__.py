"""The teardown toolset: delete panes, windows, sessions and scrollback; no command payload."""

from muxport import ToolRegistry, hookimpl

from muxport_teardown import kills


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    registry.add(*kills.TOOLS)

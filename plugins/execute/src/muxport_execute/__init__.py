"""The execute toolset: make panes, send them input, run shell commands in them."""

from typing import Any

from muxport import ToolRegistry, hookimpl

from muxport_execute import create, keys, panes, paste, reach, run_tools, sync


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    registry.add(
        *create.TOOLS,
        *panes.TOOLS,
        *keys.TOOLS,
        *paste.TOOLS,
        *sync.TOOLS,
        *run_tools.TOOLS,
    )


@hookimpl
def report_facts() -> dict[str, Any]:
    return reach.installation()

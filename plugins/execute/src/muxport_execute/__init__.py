"""The execute toolset (its tools arrive with their issue)."""

from typing import Any

from muxport import ToolRegistry, hookimpl

from muxport_execute import create, keys, panes, paste, reach, run_tools, sync

INPUT_AND_CREATE_TOOLS = [*create.TOOLS, *panes.TOOLS, *keys.TOOLS, *paste.TOOLS, *sync.TOOLS]


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    for func in [*INPUT_AND_CREATE_TOOLS, *run_tools.TOOLS]:
        registry.add(func)


@hookimpl
def report_facts() -> dict[str, Any]:
    return reach.installation()

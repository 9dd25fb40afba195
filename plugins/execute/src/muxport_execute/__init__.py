"""The execute toolset: make panes, send them input, run shell commands in them."""

from typing import Any

from muxport import ToolRegistry, hookimpl

from muxport_execute import create, keys, panes, paste, secret, sync
from muxport_execute.frames import choose
from muxport_execute.run import cleanup
from muxport_execute.run import tools as run_tools


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    registry.add(
        *create.TOOLS,
        *panes.TOOLS,
        *keys.TOOLS,
        *paste.TOOLS,
        *sync.TOOLS,
        *run_tools.TOOLS,
        *secret.TOOLS,
    )


@hookimpl
def report_facts() -> dict[str, Any]:
    return {**choose.installation(), "crash_cleanup": cleanup.survey()}

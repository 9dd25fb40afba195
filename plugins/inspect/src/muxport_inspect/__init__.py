"""The inspect toolset: observe tmux, never change it."""

from muxport import ToolRegistry, hookimpl

from muxport_inspect import (
    batch,
    config,
    environment,
    hooks,
    info,
    listings,
    screen,
    search,
    watching,
)


@hookimpl
def register_tools(registry: ToolRegistry) -> None:
    registry.add(
        *listings.TOOLS,
        *info.TOOLS,
        *screen.TOOLS,
        *search.TOOLS,
        *config.TOOLS,
        *environment.TOOLS,
        *hooks.TOOLS,
        *batch.TOOLS,
        *watching.TOOLS,
    )

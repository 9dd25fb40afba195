"""The plugin contract: pluggy project ``muxport`` and its hooks.

Hooks grow by adding arguments (pluggy lets an implementation take a subset),
never by changing shapes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from muxport._internal.registry import ToolRegistry

PROJECT = "muxport"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_tools(registry: ToolRegistry) -> None:
    """Register this toolset's tools.

    :param registry: call ``registry.add(fn)`` for each ``@tool``-declared
        ``async def fn(ctx, args) -> Result``. The registry stamps the tool with
        this plugin's toolset name (its entry-point name).

    .. versionadded:: 0.1
    """


@hookspec
def report_facts() -> dict[str, Any] | None:
    """Facts about this installation that the toolset's users need (optional).

    Shown under ``toolset_facts.<toolset>`` in ``tmux://capabilities`` and by
    ``muxport doctor`` (e.g. which run frames this machine can use). Called once at
    startup: cheap, JSON-shaped, never touching tmux.

    .. versionadded:: 0.1
    """

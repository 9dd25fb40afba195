"""Startup, in the order docs/architecture.md gives: everything that can be refused without
tmux is refused before tmux is touched; then connect, detect the caller, freeze the surface."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import anyio

from muxport._internal import plugins
from muxport._internal.caller import Caller, detect
from muxport._internal.capabilities import report
from muxport._internal.connection import Connection, Settings, connect
from muxport._internal.context import Services
from muxport._internal.selection import SelectionRequest, check_names
from muxport._internal.shutdown import SIGNAL_CLOSE, Shutdown
from muxport._internal.surface import Surface, build, check_manifest

if TYPE_CHECKING:  # the MCP SDK is imported only when serving: refusals and `tools` stay quick
    from muxport._internal.server import MuxportServer


@dataclass
class App:
    connection: Connection
    caller: Caller
    surface: Surface
    server: MuxportServer


async def closed(close: Callable[[], Awaitable[None]]) -> None:
    """Close what startup made when it is cancelled (a signal) or refused: shielded, since
    a cancelled scope would end the close at its first await, and bounded."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(SIGNAL_CLOSE):
        await close()


def preflight(
    request: SelectionRequest, extra: Mapping[str, ModuleType | object] | None = None
) -> plugins.Toolsets:
    """Load the toolsets, check every selected name and the manifest; never touches tmux."""
    toolsets = plugins.load(dict(extra or {}))
    check_names(request, toolsets.names(), toolsets.broken)
    check_manifest(toolsets, request)
    return toolsets


async def start(
    request: SelectionRequest,
    settings: Settings,
    env: Mapping[str, str] | None = None,
    extra: Mapping[str, ModuleType | object] | None = None,
    shutdown: Shutdown | None = None,
    before_tmux: Callable[[], Awaitable[object]] | None = None,
) -> App:
    """Everything up to serving: preflight, connect, caller, surface, server. ``before_tmux``
    is awaited before the first tmux process (the launcher's signal watcher starts there);
    cancelled after it (a signal), what was started is closed before the cancel goes on."""
    from muxport._internal.server import MuxportServer

    toolsets = preflight(request, extra)
    if before_tmux is not None:
        await before_tmux()
    connection = await connect(settings)
    try:
        caller = await detect(connection.tmux, os.environ if env is None else env)
        surface = build(
            toolsets, request, connection.state == "created", settings.tmux_config is not None
        )
    except BaseException:
        await closed(connection.tmux.aclose)
        raise
    services = Services(
        connection.tmux, caller, frozenset(surface.specs), surface.known, surface.nested,
        shutdown=shutdown or Shutdown(),
    )
    try:
        await services.start()
    except Exception:  # a toolbox failed: start closed what it had started
        raise
    except BaseException:  # cancelled (a signal)
        await closed(services.aclose)
        raise
    caller_row = {"relation": caller.relation, "pane_id": caller.pane_id, "how": caller.how}
    chosen = surface.selection["toolsets"]
    facts = {name: toolsets.facts[name] for name in chosen if name in toolsets.facts}
    document = report(surface.rows, surface.selection, connection.report(), caller_row, facts)
    return App(connection, caller, surface, MuxportServer(surface, services, document))

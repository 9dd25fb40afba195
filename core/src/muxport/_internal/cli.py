"""The ``muxport`` launcher: serve stdio (default), ``tools``, ``doctor``, ``--version``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import anyio
from muxport_launch.arguments import parser
from muxport_launch.early import EarlyInitialize

from muxport._internal import VERSION, app, asking, heap, http_config, regex_work
from muxport._internal.caller import detect
from muxport._internal.connection import Connection, Settings, connect, settings_from
from muxport._internal.errors import StartupError, ToolError
from muxport._internal.facts import version_key
from muxport._internal.faults import leaves
from muxport._internal.plugins import Toolsets
from muxport._internal.selection import SelectionRequest, parse_request
from muxport._internal.settings import Environment
from muxport._internal.shutdown import Shutdown
from muxport._internal.surface import build, installed_line, installed_rows


def print_tools(args: argparse.Namespace) -> None:
    request = parse_request(os.environ, args.toolsets, args.tool, args.exclude_tool)
    toolsets = app.preflight(request)
    surface = build(toolsets, request, args.assume == "created", False)
    if args.installed:
        print_installed(installed_rows(toolsets, surface), args.json)
        return
    if args.json:
        print(json.dumps({"selection": surface.selection,
                          "tools": [surface.rows[n] for n in sorted(surface.rows)]}, indent=1))
        return
    print(f"{'tool':<24} {'toolset':<10} {'reach':<20} effects")
    for name in sorted(surface.rows):
        r = surface.rows[name]
        effects = ",".join(r["tmux_effects"])
        print(f"{name:<24} {r['toolset']:<10} {r['process_reach']:<20} {effects}")
    chosen = ", ".join(surface.selection["toolsets"]) or "none"
    print(f"{len(surface.rows)} tools; toolsets: {chosen}")


def print_installed(rows: list[dict[str, object]], as_json: bool) -> None:
    """``tools --installed``: every installed toolset, selected or not, with its version."""
    if as_json:
        print(json.dumps({"installed": rows}, indent=1))
        return
    print(f"{'toolset':<12} {'version':<10} {'distribution':<24} selected")
    for r in rows:
        state = f"{r['selected_tools']}/{r['tools']}" + (" broken" if r["broken"] else "")
        print(f"{r['toolset']:<12} {r['version']!s:<10} {r['distribution']!s:<24} {state}")


async def doctor(args: argparse.Namespace) -> None:
    request = parse_request(os.environ, args.toolsets, args.tool, args.exclude_tool)
    toolsets = app.preflight(request)
    settings = settings_from(dict(os.environ), args.socket, args.socket_name, args.tmux,
                             args.ssh, args.ssh_option)
    Environment.from_env(os.environ, settings.socket_path is None and settings.ssh is None).apply()
    conn = await connect(settings, start=False)
    try:
        await report(conn, toolsets, request, settings)
    finally:
        await conn.tmux.aclose()  # clients it started, a far host's master and directory


async def report(conn: Connection, toolsets: Toolsets, request: SelectionRequest,
                 settings: Settings) -> None:
    """What ``doctor`` prints."""
    caller = await detect(conn.tmux, os.environ)
    # Only the dedicated daemon can be created by muxport: a chosen socket gets the
    # "existing" default even when its server is absent (as ``serve`` would).
    would_create = conn.selector == "dedicated" and conn.state != "existing"
    surface = build(toolsets, request, would_create, settings.tmux_config is not None)
    if far := conn.tmux.host.report():  # another host's (docs/transport.md, "Hosts")
        print(f"host: {far['host']} ({far['host_transport']})")
    print(f"tmux: {conn.tmux.binary} ({conn.version})")
    running = conn.server_version or "none running"
    differs = conn.server_version and version_key(conn.server_version) != version_key(conn.version)
    print(f"server: tmux {running}" + (" (not the binary's version: muxport speaks to the "
                                       "server's, with its quirks)" if differs else ""))
    if conn.server_version:
        await conn.tmux.wire.probe_fd_header()  # serving probes it at the first wait
    for key, value in conn.tmux.wire.report().items():
        print(f"transport {key.replace('_', ' ')}: {value}")
    print(f"socket: {conn.socket_path} ({conn.selector}, from {conn.source}; server {conn.state})")
    print(f"caller: {' '.join(filter(None, (caller.relation, caller.pane_id)))} ({caller.how})")
    print(asking.doctor_line())
    print(f"toolsets: {', '.join(surface.selection['toolsets']) or 'none'}")
    print(f"tools ({len(surface.specs)}): {', '.join(sorted(surface.specs))}")
    for row in installed_rows(toolsets, surface):
        print(f"installed toolset {row['toolset']}: {installed_line(row)}")
    for name, facts in sorted(toolsets.facts.items()):
        if name in surface.selection["toolsets"]:
            for key, value in facts.items():
                print(f"{name} {key}: {json.dumps(value, sort_keys=True)}")
    if toolsets.broken:
        print(f"broken toolsets: {toolsets.broken}")


def use_pidfd_child_watcher() -> None:
    """On Python 3.11, reap tmux processes through pidfds instead of one thread each.

    3.11's default asyncio child watcher starts (and waits for) a thread per child
    process: with tmux run once per call that was half the server's CPU under load
    (bench/README.md). 3.12 made the pidfd watcher the default; this is the same.
    """
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        return
    import asyncio

    watcher = asyncio.PidfdChildWatcher()
    watcher.attach_loop(asyncio.get_running_loop())
    asyncio.set_child_watcher(watcher)


async def serve(args: argparse.Namespace, early: EarlyInitialize | None) -> int:
    """Start and serve; the exit status (0 at EOF, 128 + the signal that ended it). From
    just before the first tmux process, SIGINT and SIGTERM cancel startup and serving alike
    (``Shutdown.watch``); before that the launcher exits at once (``exit_at_once``)."""
    use_pidfd_child_watcher()
    heap.fix_mmap_threshold()
    regex_work.prefer_the_loop()
    request = parse_request(os.environ, args.toolsets, args.tool, args.exclude_tool)
    settings = settings_from(dict(os.environ), args.socket, args.socket_name, args.tmux,
                             args.ssh, args.ssh_option)
    named_here = settings.socket_path is None and settings.ssh is None
    environment = Environment.from_env(os.environ, named_here)
    environment.apply()
    http = http_config.from_args(args, os.environ)  # checked before tmux is touched
    shutdown = Shutdown()
    code = 0
    try:
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                await group.start(shutdown.watch, group.cancel_scope)

            try:
                started = await app.start(request, settings, shutdown=shutdown, before_tmux=watch)
                if http is not None:  # imports the HTTP stack only when asked (docs/http.md)
                    from muxport._internal.http_serve import served_http

                    code = await served_http(started, http, environment.limits)
                else:
                    code = await served(args, early, started, environment)
            finally:
                shutdown.stop()  # everything is closed: the watcher may go
    except BaseExceptionGroup as exc:  # anyio's wrapping of a refused startup: unwrapped
        found = leaves(exc)
        if len(found) == 1:
            raise found[0] from None
        raise
    return 128 + shutdown.signal if shutdown.signal else code


async def served(args: argparse.Namespace, early: EarlyInitialize | None, started: app.App,
                 environment: Environment) -> int:
    """Say how to watch the server, then serve stdio until EOF or a signal."""
    conn = started.connection
    line = (
        f"muxport {VERSION}: serving {conn.socket_path} ({conn.state}, {conn.version}); "
        f"{len(started.surface.specs)} tools; watch it with: {conn.attach_command}"
    )
    # Clients log whatever a server writes to stderr as errors: the line goes there for a
    # person at a terminal (or --verbose), otherwise to the client as an MCP log message.
    shown = args.verbose or sys.stderr.isatty()
    if shown:
        print(line, file=sys.stderr, flush=True)
    return await started.server.serve_stdio(environment.limits, None if shown else line, early)


def exit_now(code: int) -> NoReturn:
    """End the process once serving ended (EOF, or SIGINT/SIGTERM), skipping interpreter
    teardown.

    By then every tmux client is reaped, every private file removed and the audit log
    closed; what is left (collecting ~100k objects, unloading modules) took 0.15 s of
    CPU, which a loaded machine stretched past the 1 s EOF-to-exit budget. It also ends
    the thread still blocked reading stdin after a signal (a read cannot be interrupted).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """The command without the launcher's early answer (``python -m muxport``)."""
    return run(parser().parse_args(argv), None)


def run(args: argparse.Namespace, early: EarlyInitialize | None) -> int:
    logging.basicConfig(level=os.environ.get("MUXPORT_LOG", "WARNING"), stream=sys.stderr,
                        format="muxport: %(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "tools":
            print_tools(args)
        elif args.command == "doctor":
            anyio.run(doctor, args)
        else:
            exit_now(anyio.run(serve, args, early))
    except StartupError as exc:
        return refused(early, f"muxport: {exc}")
    except ToolError as exc:  # tmux refused or hung while starting (tmux_unresponsive, ...)
        return refused(early, f"muxport: cannot start: {exc.message}")
    except KeyboardInterrupt:
        return 130
    return 0


def refused(early: EarlyInitialize | None, message: str) -> int:
    print(message, file=sys.stderr)
    if early is not None:
        early.startup_failed(message)
    return 2


if __name__ == "__main__":
    sys.exit(main())

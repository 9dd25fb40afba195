"""MCP clients for tests: in process, and over real stdio through the installed launcher.

The test kit is the one place besides ``muxport._internal.server`` that imports ``mcp``: it is a
client, and toolset tests use it through these helpers only.
"""

from __future__ import annotations

import copy
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import jsonschema  # type: ignore[import-untyped]
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client as _stdio_transport
from mcp.shared.exceptions import MCPError

from muxport._internal.answers import UNSEEN_KEY
from muxport._internal.app import App, start
from muxport._internal.capabilities import META_DEFAULTS, META_KEY
from muxport._internal.connection import settings_from
from muxport._internal.selection import parse_request

__all__ = [
    "CheckedCalls", "MCPError", "answer_of", "capability_row", "in_process_client",
    "stdio_client", "tool_schema_errors", "with_defaults",
]


def launcher() -> str:
    """The installed ``muxport`` console script of this environment."""
    beside = Path(sys.executable).with_name("muxport")
    return str(beside) if beside.exists() else "muxport"


def selection_env(
    toolsets: Sequence[str] | None, tools: Sequence[str] = (), exclude: Sequence[str] = ()
) -> dict[str, str]:
    env: dict[str, str] = {}
    if toolsets is not None:
        env["LIBTMUX_TOOLSETS"] = ",".join(toolsets)
    if tools:
        env["LIBTMUX_TOOLS"] = ",".join(tools)
    if exclude:
        env["LIBTMUX_EXCLUDE_TOOLS"] = ",".join(exclude)
    return env


@asynccontextmanager
async def in_process_client(
    socket_path: str,
    toolsets: Sequence[str] | None = None,
    tools: Sequence[str] = (),
    exclude: Sequence[str] = (),
    caller_env: Mapping[str, str] | None = None,
    extra_plugins: Mapping[str, ModuleType | object] | None = None,
) -> AsyncIterator[tuple[Client, App]]:
    """A connected ``mcp.Client`` for a server built in this process (real JSON-RPC handshake).

    ``caller_env`` stands in for the process environment in caller detection
    (default: outside tmux).
    """
    request = parse_request(selection_env(toolsets, tools, exclude), None, [], [])
    settings = settings_from({}, socket_path, None, None)
    app = await start(request, settings, env=dict(caller_env or {}), extra=extra_plugins)
    async with anyio.create_task_group() as group:
        app.server.services.task_group = group
        try:
            async with Client(app.server.lowlevel, mode="legacy") as client:
                yield client, app
        finally:
            with anyio.CancelScope(shield=True):
                await app.server.close()
            group.cancel_scope.cancel()


@asynccontextmanager
async def stdio_client(
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    mode: str = "legacy",
) -> AsyncIterator[Client]:
    """The installed launcher as a subprocess, spoken to over its real stdin and stdout.

    Its stderr goes to a temporary file, printed if the session fails to start.
    """
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    full_env.update(env or {})
    params = StdioServerParameters(command=launcher(), args=list(args), env=full_env)
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            async with Client(_stdio_transport(params, errlog=errlog), mode=mode) as client:
                # initialize is answered while the server still loads (docs/architecture.md,
                # "Startup order"); tools/list, which clients send first, waits until it
                # has: a test then starts with a loaded server, as a client's model does
                await client.list_tools()
                yield client
        except BaseException:
            errlog.seek(0)
            sys.stderr.write(f"muxport stderr:\n{errlog.read()}\n")
            raise


def tool_schema_errors(output_schema: dict[str, Any] | None, structured: Any) -> list[str]:
    """Every way ``structured`` breaks ``output_schema`` (empty when it conforms)."""
    if output_schema is None:
        return ["the tool declares no outputSchema"]
    validator = jsonschema.Draft202012Validator(output_schema)
    return [error.message for error in validator.iter_errors(structured)]


def with_defaults(schema: Any, value: Any) -> Any:
    """``value`` with every field the schema gives a ``default`` for, and that the answer
    left out at that default, put back (at every level)."""
    if isinstance(value, dict) and isinstance(schema, dict):
        properties = schema.get("properties", {})
        full = {key: with_defaults(properties.get(key), item) for key, item in value.items()}
        for key, sub in properties.items():
            if key not in full and isinstance(sub, dict) and "default" in sub:
                full[key] = sub["default"]
        return full
    if isinstance(value, list) and isinstance(schema, dict):
        return [with_defaults(schema.get("items"), item) for item in value]
    return value


def answer_of(result: Any) -> dict[str, Any]:
    """A tool's answer as a program reads it (a ``CallToolResult`` or its JSON):
    ``structuredContent`` with the fields no model reads, which ``_meta`` carries
    (docs/answers.md, "What a model reads"), put back."""
    if isinstance(result, dict):
        structured, meta = result.get("structuredContent"), result.get("_meta")
    else:
        structured, meta = result.structured_content, result.meta
    return {**(structured or {}), **(meta or {}).get(UNSEEN_KEY, {})}


def capability_row(tool: Any) -> dict[str, Any]:
    """A listed tool's ``_meta["muxport/capability"]`` row (a ``Tool`` or its JSON) with the
    facts it leaves out at their default put back (docs/client-fit.md)."""
    meta = tool.get("_meta") if isinstance(tool, dict) else tool.meta
    return {**copy.deepcopy(META_DEFAULTS), **(meta or {}).get(META_KEY, {})}


class CheckedCalls:
    """Call tools through ``client`` and check every answer: no tool error, and the
    ``structuredContent`` valid against the tool's own ``outputSchema``. The answer is
    returned with the fields it left out at their default filled in (``with_defaults``),
    and those ``_meta`` carries for programs (``answer_of``).

    ``tools`` holds the listed tools by name once the first call has listed them.
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.tools: dict[str, Any] = {}

    async def __call__(
        self, name: str, arguments: dict[str, Any] | None = None, /, **more: Any
    ) -> Any:
        """``calls("rename_window", {"window_id": "@1"})`` or ``calls("rename_window",
        window_id="@1")``."""
        if not self.tools:
            self.tools = {t.name: t for t in (await self.client.list_tools()).tools}
        result = await self.client.call_tool(name, {**(arguments or {}), **more})
        assert not result.is_error, (name, result.content)
        schema = self.tools[name].output_schema
        errors = tool_schema_errors(schema, result.structured_content)
        assert errors == [], errors
        return with_defaults(schema, answer_of(result))

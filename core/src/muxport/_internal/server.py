"""The MCP server: the only module that imports ``mcp`` (docs/architecture.md).

Built on the SDK's low-level ``Server`` so that argument validation, error text
and ``_meta`` are ours: every answer is a named record in ``structuredContent``
plus the same JSON as text; every failure is a tool error naming the recovery.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from muxport._internal import VERSION
from muxport._internal.audit import Audit
from muxport._internal.capabilities import META_KEY, RESOURCE_URI, describe
from muxport._internal.context import Services, ToolContext
from muxport._internal.errors import InvalidArgument, Refused, ToolError
from muxport._internal.instructions import INSTRUCTIONS
from muxport._internal.surface import Surface
from muxport._internal.targets import answer_dict
from muxport._internal.transport import KINDS

log = logging.getLogger("muxport")


# where a missing id comes from, so that the error names the recovery
ID_SOURCES = {f"{kind}_id": tool for kind, (_, tool) in KINDS.items()}


def validation_message(tool: str, error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "arguments"
        message = item["msg"].removeprefix("Value error, ")
        last = str(item["loc"][-1]) if item["loc"] else ""
        if item["type"] == "missing" and last in ID_SOURCES:
            message = f"required: pass an exact id from {ID_SOURCES[last]}"
        elif item["type"] == "missing":
            message = "required: pass it"
        elif item["type"] == "extra_forbidden":
            message = "unknown argument: remove it"
        parts.append(f"{where}: {message}")
    return f"invalid arguments for {tool}: " + "; ".join(parts) + " (see the tool's inputSchema)"


def error_result(error: ToolError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error.message)],
        is_error=True,
        meta=error.meta(),
    )


class MuxportServer:
    """Dispatches ``tools/call`` to the selected tools; serves the capability report."""

    def __init__(self, surface: Surface, services: Services, report: dict[str, Any]) -> None:
        self.surface = surface
        self.services = services
        self.report_text = json.dumps(report, indent=1)
        self.audit = Audit.from_env()
        self.tools = [
            types.Tool(
                name=name,
                title=spec.title,
                description=describe(spec),
                input_schema=surface.rows[name]["input_schema"],
                output_schema=surface.rows[name]["output_schema"],
                annotations=types.ToolAnnotations(
                    title=spec.title, read_only_hint=False, destructive_hint=True,
                    idempotent_hint=False, open_world_hint=True,
                ),
                meta={META_KEY: surface.rows[name]},
            )
            for name, spec in sorted(surface.specs.items())
        ]
        self.lowlevel = Server(
            "muxport",
            version=VERSION,
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
        )

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        with self.audit.record(params.name, params.arguments) as entry:
            result = await self.dispatch(ctx, params.name, params.arguments or {})
            entry.finish(result.is_error, (result.meta or {}).get("error_code"))
            return result

    async def dispatch(
        self, ctx: ServerRequestContext[Any], name: str, arguments: dict[str, Any]
    ) -> types.CallToolResult:
        spec = self.surface.specs.get(name)
        if spec is None:
            listed = ", ".join(sorted(self.surface.specs)) or "none"
            known = name in self.surface.known
            why = "is not selected on this server" if known else "does not exist"
            return error_result(Refused(
                f"tool {name} {why}; nothing was run. Available tools: {listed}",
                code="tool_not_available",
            ))
        try:
            args = self.surface.args[name].model_validate(arguments)
        except ValidationError as exc:
            return error_result(InvalidArgument(validation_message(name, exc)))
        except (TypeError, ValueError, AssertionError) as exc:
            # pydantic lets some constraint errors escape as plain exceptions (max_length on a
            # None): still the caller's bad argument, never a protocol error.
            log.warning("argument check of %s raised %r", name, exc)
            return error_result(InvalidArgument(
                f"invalid arguments for {name}: {exc} (see the tool's inputSchema)"
            ))
        tool_ctx = ToolContext(name, self.services, ctx.session.report_progress)
        try:
            result = await self.services.func(name)(tool_ctx, args)
        except ToolError as exc:
            return error_result(exc)
        except Exception:
            log.exception("tool %s failed", name)
            return error_result(ToolError(
                f"{name} hit an internal error (a muxport bug; the server log has the details). "
                "The server is still running: check the target with a listing tool and try again.",
                code="internal_error", delivery="possibly_sent",
            ))
        data = answer_dict(result)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
            structured_content=data,
        )

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            name="capabilities", title="muxport capabilities", uri=RESOURCE_URI,
            mime_type="application/json",
            description="Selection, capability rows and the served tmux connection.",
        )])

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != RESOURCE_URI:
            from mcp.shared.exceptions import MCPError

            raise MCPError(
                code=-32602, message=f"unknown resource {params.uri}; read {RESOURCE_URI}"
            )
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=RESOURCE_URI, mime_type="application/json", text=self.report_text,
        )])

    async def serve_stdio(self) -> None:
        """Serve until EOF on stdin, then close the toolboxes and reap tmux clients."""
        async with anyio.create_task_group() as group:
            self.services.task_group = group
            try:
                async with stdio_server() as (read, write):
                    options = self.lowlevel.create_initialization_options()
                    await self.lowlevel.run(read, write, options)
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                    await self.close()
                group.cancel_scope.cancel()

    async def close(self) -> None:
        await self.services.aclose()
        self.audit.close()

"""The MCP server: the only module that imports ``mcp`` (docs/architecture.md).

Built on the SDK's low-level ``Server`` so that argument validation, error text
and ``_meta`` are ours: every answer is a named record in ``structuredContent``
plus the same JSON as text; every failure is a tool error naming the recovery.
"""

from __future__ import annotations

import json
import logging
import warnings
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from muxport_launch.early import EarlyInitialize
from muxport_launch.instructions import INSTRUCTIONS
from pydantic import BaseModel, ValidationError

from muxport._internal import VERSION, completion, resources
from muxport._internal.answers import (
    SETTING,
    UNSEEN_KEY,
    AnswerBudget,
    answering,
    budget_in_force,
    shape,
)
from muxport._internal.arguments import bad_string, without_client_fields
from muxport._internal.asking import NeedsInput, ask_seconds, asking, needs_input_in
from muxport._internal.asking_secret import Pages
from muxport._internal.asking_wire import Seal, asking_for, input_required
from muxport._internal.asking_wire import report as asking_report
from muxport._internal.audit import Audit
from muxport._internal.capabilities import META_KEY, meta_row, wire_hints
from muxport._internal.context import Services, ToolContext
from muxport._internal.errors import InvalidArgument, Refused, ToolError
from muxport._internal.faults import tool_error_of
from muxport._internal.hookguard import guarding
from muxport._internal.settings import Limits
from muxport._internal.shutdown import CUT_NOTE, EOF_CLOSE, SIGNAL_CLOSE, cut_short
from muxport._internal.stdio import StdioLoop
from muxport._internal.surface import Surface
from muxport._internal.targets import Result

log = logging.getLogger("muxport")
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource
INVALID_PARAMS = -32602


def tool_definition(row: dict[str, Any]) -> types.Tool:
    """What ``tools/list`` shows of one tool; ``_meta`` adds only what the rest does not say."""
    return types.Tool(
        name=row["name"],
        title=row["title"],
        description=row["description"],
        input_schema=row["input_schema"],
        output_schema=row["output_schema"],
        annotations=types.ToolAnnotations.model_validate(wire_hints(row["annotations"])),
        meta={META_KEY: meta_row(row)},
    )


def error_result(error: ToolError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error.message)],
        is_error=True,
        meta=error.meta(),
    )


def client_name(ctx: ServerRequestContext[Any]) -> str | None:
    """The client's ``clientInfo.name``: from ``initialize``, or (2026-07-28) the request's
    metadata; it picks the client's own answer budget (client_limits.py)."""
    params = ctx.session.client_params
    if params is not None:
        return params.client_info.name
    meta: dict[str, Any] = dict(ctx.meta or {})
    info = meta.get(types.CLIENT_INFO_META_KEY)
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else None


class MuxportServer:
    """Dispatches ``tools/call`` to the selected tools; serves the capability report."""

    def __init__(self, surface: Surface, services: Services, report: dict[str, Any]) -> None:
        self.surface = surface
        self.services = services
        self.report = report
        self.audit = Audit.from_env()
        self.seal, self.ask_seconds = Seal(), ask_seconds()  # asking the person (asking.py)
        self.pages = Pages(lambda: self.services.task_group)
        self.tools = [tool_definition(surface.rows[name]) for name in sorted(surface.specs)]
        with warnings.catch_warnings():  # logging: deprecated in 2026-07-28, not before
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            self.lowlevel = Server(
                "muxport",
                version=VERSION,
                instructions=INSTRUCTIONS,
                on_list_tools=self.list_tools,
                on_call_tool=self.call_tool,
                on_list_resources=self.list_resources,
                on_list_resource_templates=self.list_resource_templates,
                on_read_resource=self.read_resource,
                on_set_logging_level=self.set_logging_level,
            )

    async def set_logging_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        """Accepted: the one log message muxport sends (the startup line) precedes it."""
        return types.EmptyResult()

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        with self.audit.record(params.name, params.arguments) as entry:
            try:
                with asking(asking_for(ctx, params, self.seal, self.ask_seconds, self.pages)):
                    result = await self.dispatch(ctx, params.name, params.arguments or {})
            except NeedsInput as need:  # 2026-07-28: the client asks the person, then retries
                entry.finish(False, "input_required")
                return input_required(need, self.seal, self.ask_seconds)
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
        found = bad_string(arguments, "", nul=True)
        if found is not None:  # stdio refuses it in frames.py; over HTTP it comes here
            return error_result(InvalidArgument(
                f"argument {found} (tool {name}); nothing was run: call again with the "
                "argument fixed"))
        model = self.surface.args[name]
        try:
            args = model.model_validate(without_client_fields(arguments, model))
        except ValidationError as exc:
            return error_result(InvalidArgument.from_validation(name, exc, model))
        except (TypeError, ValueError, AssertionError) as exc:
            # pydantic lets some constraint errors escape as plain exceptions (max_length on a
            # None): still the caller's bad argument, never a protocol error.
            log.warning("argument check of %s raised %r", name, exc)
            return error_result(InvalidArgument(
                f"invalid arguments for {name}: {exc} (see the tool's inputSchema)"
            ))
        tool_ctx = ToolContext(name, self.services, ctx.session.report_progress)
        read_only = self.surface.rows[name]["annotations"]["readOnlyHint"]
        result: BaseModel | None = None
        budget = AnswerBudget(budget_in_force(client_name(ctx))[0])
        try:
            with (guarding(name if read_only else None), self.services.shutdown.call(),
                  answering(budget), completion.collecting() as hook_errors):
                result = await self.services.func(name)(tool_ctx, args)
            if result is None:  # the grace after EOF is over: cancelled
                return error_result(cut_short(name))
        except NeedsInput:
            raise
        except ToolError as exc:
            return error_result(exc)
        except Exception as exc:
            if (need := needs_input_in(exc)) is not None:
                raise need from None
            # Tool errors raised inside task groups arrive as ExceptionGroups; OS refusals
            # (ENOSPC, EMFILE) are not bugs either: both answer with what happened.
            mapped = tool_error_of(exc, f"running {name}")
            if mapped is not None:
                return error_result(mapped)
            log.exception("tool %s failed", name)
            return error_result(ToolError(
                f"{name} hit an internal error (a muxport bug; the server log has the details). "
                "The server is still running: check the target with a listing tool and try again.",
                code="internal_error", delivery="possibly_sent",
            ))
        if tool_ctx._cut_short and isinstance(result, Result):
            result.note = "; ".join(filter(None, (CUT_NOTE, result.note)))
        if hook_errors and isinstance(result, Result):  # done, though a hook failed after it
            result.note = "; ".join(filter(None, (result.note, completion.note(hook_errors))))
        shaped = shape(result, budget.limit)
        if shaped is None:
            return error_result(ToolError(
                f"{name}'s answer does not fit the answer budget of {budget.limit:,} "
                f"characters ({SETTING}); nothing is lost in tmux: ask for less",
                code="answer_too_large", delivery="observed",
            ))
        # clients show a model content or structuredContent, not _meta: what no model
        # reads goes there, for programs (docs/answers.md, "What a model reads")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=shaped.text)],
            structured_content=shaped.data,
            meta={UNSEEN_KEY: shaped.unseen} if shaped.unseen else None,
        )

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        found = [types.Resource(
            name="capabilities", title="muxport capabilities", uri=resources.CAPABILITIES_URI,
            mime_type="application/json",
            description="Selection, capability rows and the served tmux connection.",
        )]
        if "list_sessions" in self.surface.specs:
            found.append(types.Resource(
                name="sessions", title="Sessions", uri=resources.SESSIONS_URI,
                mime_type="application/json",
                description="Every session, as list_sessions answers it.",
            ))
        return types.ListResourcesResult(resources=found)

    async def list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(
                name=t.name, title=t.title, uri_template=t.uri_template,
                mime_type="application/json", description=t.description,
            )
            for t in resources.templates(frozenset(self.surface.specs))
        ])

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == resources.CAPABILITIES_URI:
            limit, why = budget_in_force(client_name(ctx))
            text = json.dumps({**self.report, "answer_budget": {"characters": limit, "why": why},
                               "ask_person": asking_report(ctx, self.ask_seconds)},
                              separators=(",", ":"), ensure_ascii=False)
        else:
            try:
                name, arguments = resources.route(uri, frozenset(self.surface.specs))
            except resources.UnknownResource as exc:
                raise MCPError(code=RESOURCE_NOT_FOUND, message=str(exc)) from None
            # the tool's own dispatch: selection, checks, budgets, hook check, audit
            result = await self.call_tool(ctx, types.CallToolRequestParams(
                name=name, arguments=arguments))
            if not isinstance(result, types.CallToolResult):  # no resource asks the person
                raise MCPError(code=INVALID_PARAMS, message=f"{uri} cannot be read here")
            if result.is_error:
                code = (result.meta or {}).get("error_code")
                text = " ".join(c.text for c in result.content if isinstance(c, types.TextContent))
                raise MCPError(
                    code=RESOURCE_NOT_FOUND if code == "not_found" else INVALID_PARAMS,
                    message=text,
                    data=result.meta,
                )
            text = json.dumps(result.structured_content, ensure_ascii=False)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="application/json", text=text,
        )])

    async def serve_stdio(
        self, limits: Limits | None = None, greeting: str | None = None,
        early: EarlyInitialize | None = None,
    ) -> int:
        """Serve until EOF on stdin (every request read answered) or SIGINT/SIGTERM, then
        close the toolboxes and reap tmux clients; the exit status (0, or 128 + signal).
        ``greeting`` is sent as a log message after the initialize answer; ``early`` holds
        the wire once the launcher took it (and may have answered initialize)."""
        options = self.lowlevel.create_initialization_options()
        loop = StdioLoop(limits or Limits(), self.is_quick, self.services.shutdown.drain)
        loop.greeting = greeting
        loop.early = early
        shutdown = self.services.shutdown
        async with anyio.create_task_group() as group:
            self.services.task_group = group
            group.start_soon(shutdown.on_signal, group.cancel_scope)
            try:
                await loop.serve(lambda read, write: self.lowlevel.run(read, write, options))
            finally:
                bound = SIGNAL_CLOSE if shutdown.signal else EOF_CLOSE
                with anyio.CancelScope(shield=True), anyio.move_on_after(bound):
                    await self.close()
                group.cancel_scope.cancel()
        return 128 + shutdown.signal if shutdown.signal else 0

    def is_quick(self, name: str) -> bool:
        """Whether a call of ``name`` answers at once (no ``timeout``: not a wait)."""
        spec = self.surface.specs.get(name)
        return spec is None or "timeout" not in spec.args.model_fields

    async def close(self) -> None:
        await self.services.aclose()
        self.audit.close()

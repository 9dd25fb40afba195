"""How a toolset declares a tool: the ``@tool`` decorator and the ``ToolSpec`` it yields.

A tool is a plain ``async def fn(ctx, args) -> Result`` whose argument and result
types are pydantic models; the decorator records the capability row fields
and the registry derives everything else from the signature.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from muxport.schemas import plain, without_nested_prose

if TYPE_CHECKING:
    from muxport.context import ToolContext

Reach = Literal["none", "configured-process", "pane-input", "pane-command", "host-command"]
Effect = Literal["observe", "change", "delete"]
OutputClass = Literal[
    "tmux-metadata", "terminal-content", "process-environment", "configured-command"
]
Literalization = Literal["double-hash-once", "validated-variable-name"]

EFFECT_ORDER: tuple[Effect, ...] = ("observe", "change", "delete")

ToolFunc = Callable[["ToolContext", Any], Awaitable[BaseModel]]
# Builds the argument model once the nested authority is known (the read batch only).
ArgsFactory = Callable[[Mapping[str, "ToolSpec"]], type[BaseModel]]

DECLARATION = "__muxport_tool__"


@dataclass(frozen=True)
class ToolSpec:
    """Everything the core knows about one tool; ``toolset`` is filled in by the registry."""

    name: str
    func: ToolFunc
    args: type[BaseModel]
    result: type[BaseModel]
    title: str
    description: str
    process_reach: Reach
    tmux_effects: tuple[Effect, ...]
    output_classes: tuple[OutputClass, ...]
    may_expose_secrets: bool
    may_return_untrusted_content: bool
    amplifies_future_input: bool = False
    input_literalization: Mapping[str, Literalization] = field(default_factory=dict)
    nested_authority: tuple[str, ...] = ()
    args_factory: ArgsFactory | None = None
    # Repeating the call changes nothing more (reads are idempotent without saying so).
    idempotent: bool = False
    # None: read-only exactly when it observes only and reaches no process.
    read_only: bool | None = None
    toolset: str = ""
    plugin: str = ""


def tool(
    *,
    title: str,
    reach: Reach,
    effects: list[Effect],
    outputs: list[OutputClass],
    secrets: bool,
    untrusted: bool,
    amplifies_future_input: bool = False,
    literalization: Mapping[str, Literalization] | None = None,
    nested_authority: list[str] | None = None,
    args_factory: ArgsFactory | None = None,
    idempotent: bool = False,
    read_only: bool | None = None,
    name: str | None = None,
) -> Callable[[ToolFunc], ToolFunc]:
    """Declare an ``async def tool(ctx, args: ArgsModel) -> ResultModel``.

    The docstring is the description; its first sentence must tell the tool apart.
    """

    def decorate(func: ToolFunc) -> ToolFunc:
        if not inspect.iscoroutinefunction(func):
            raise TypeError(f"tool {func.__name__} must be async def")
        hints = typing.get_type_hints(func)
        params = list(inspect.signature(func).parameters)
        if len(params) != 2:
            raise TypeError(f"tool {func.__name__} must take (ctx, args)")
        args_model, result_model = hints.get(params[1]), hints.get("return")
        for what, model in (("argument", args_model), ("result", result_model)):
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise TypeError(f"tool {func.__name__}: {what} type must be a pydantic model")
        spec = ToolSpec(
            name=name or func.__name__,
            func=func,
            args=typing.cast(type[BaseModel], args_model),
            result=typing.cast(type[BaseModel], result_model),
            title=title,
            description=inspect.cleandoc(func.__doc__ or ""),
            process_reach=reach,
            tmux_effects=tuple(effects),
            output_classes=tuple(outputs),
            may_expose_secrets=secrets,
            may_return_untrusted_content=untrusted,
            amplifies_future_input=amplifies_future_input,
            input_literalization=dict(literalization or {}),
            nested_authority=tuple(nested_authority or ()),
            args_factory=args_factory,
            idempotent=idempotent,
            read_only=read_only,
        )
        setattr(func, DECLARATION, spec)
        return func

    return decorate


@functools.cache
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema for arguments in the plain subset, made once (rows, listing
    and rules share it)."""
    return plain(model.model_json_schema(), nullable=False)


@functools.cache
def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema for answers (serialization mode, plain subset), made once."""
    return without_nested_prose(
        plain(model.model_json_schema(mode="serialization"), nullable=True)
    )


def spec_of(func: object) -> ToolSpec | None:
    """The declaration ``@tool`` attached to ``func``, if any."""
    spec = getattr(func, DECLARATION, None)
    return spec if isinstance(spec, ToolSpec) else None

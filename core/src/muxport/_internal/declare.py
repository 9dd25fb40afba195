"""How a toolset declares a tool: the ``@tool`` decorator and the ``ToolSpec`` it yields.

A tool is a plain ``async def fn(ctx, args) -> Result`` (or a method of a ``Toolbox``,
an object with a lifespan) whose argument and result types are pydantic models; the
decorator records the capability row fields (docs/plugin-contract.md) and the registry
derives everything else from the signature.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from muxport._internal.context import ToolContext
    from muxport._internal.transport import Tmux

Reach = Literal["none", "configured-process", "pane-input", "pane-command", "host-command"]
Effect = Literal["observe", "change", "delete"]
OutputClass = Literal[
    "tmux-metadata", "terminal-content", "process-environment", "configured-command"
]
Literalization = Literal["double-hash-once", "validated-variable-name"]

EFFECT_ORDER: tuple[Effect, ...] = ("observe", "change", "delete")

ToolFunc = Callable[["ToolContext", Any], Awaitable[BaseModel]]
F = TypeVar("F", bound=Callable[..., Awaitable[BaseModel]])
# Builds the argument model once the nested authority is known (the read batch only).
ArgsFactory = Callable[[Mapping[str, "ToolSpec"]], type[BaseModel]]

DECLARATION = "__muxport_tool__"


@dataclass(frozen=True)
class Capability:
    """What a tool may do and return, under the capability row's own field names
    (docs/plugin-contract.md). Start from a preset and vary it with ``replace``."""

    process_reach: Reach
    tmux_effects: tuple[Effect, ...]
    output_classes: tuple[OutputClass, ...]
    may_expose_secrets: bool
    may_return_untrusted_content: bool
    amplifies_future_input: bool = False

    def replace(
        self,
        *,
        process_reach: Reach | None = None,
        tmux_effects: Sequence[Effect] | None = None,
        output_classes: Sequence[OutputClass] | None = None,
        may_expose_secrets: bool | None = None,
        may_return_untrusted_content: bool | None = None,
        amplifies_future_input: bool | None = None,
    ) -> Capability:
        """This capability with the given fields changed."""
        return Capability(
            process_reach or self.process_reach,
            tuple(self.tmux_effects if tmux_effects is None else tmux_effects),
            tuple(self.output_classes if output_classes is None else output_classes),
            _or(may_expose_secrets, self.may_expose_secrets),
            _or(may_return_untrusted_content, self.may_return_untrusted_content),
            _or(amplifies_future_input, self.amplifies_future_input),
        )


def _or(value: bool | None, default: bool) -> bool:
    return default if value is None else value


META: tuple[OutputClass, ...] = ("tmux-metadata",)
# Reads tmux state; names, titles and paths in the answer may carry secrets or untrusted text.
READ = Capability("none", ("observe",), META, True, True)
# Changes tmux state, answering with ids and numbers only.
CHANGE = Capability("none", ("observe", "change"), META, False, False)
# Starts a pane's configured process (no command payload).
SPAWN = Capability("configured-process", ("observe", "change"), META, False, True)
# Sends input to a pane's program.
INPUT = Capability("pane-input", ("observe", "change"), META, False, False)
# Runs a shell command in a pane and returns what it printed.
COMMAND = Capability(
    "pane-command", ("observe", "change"), ("terminal-content", *META), True, True
)
# Deletes tmux state.
DELETE = Capability("none", ("observe", "delete"), META, False, False)


class Toolbox:
    """A toolset object with a lifespan: made once per server, before the first call,
    for the tools declared as its methods (``async def tool(self, ctx, args)``).

    ``__init__`` (no arguments) or ``start`` builds its typed state; ``aclose`` runs
    at shutdown. Register the class: ``registry.add(MyToolbox)``.
    """

    async def start(self, tmux: Tmux) -> None:
        """Called once the server is connected, before any tool of this toolbox runs."""

    async def aclose(self) -> None:
        """Called at shutdown (remove private files, stop clients); must not raise."""


@dataclass(frozen=True)
class ToolSpec:
    """Everything the core knows about one tool; ``toolset`` is filled in by the registry."""

    name: str
    func: Callable[..., Awaitable[BaseModel]]
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
    toolset: str = ""
    plugin: str = ""
    toolbox: type[Toolbox] | None = None  # set for a method: the class it is bound to


def tool(
    capability: Capability,
    *,
    title: str,
    input_literalization: Mapping[str, Literalization] | None = None,
    nested_authority: Sequence[str] = (),
    args_factory: ArgsFactory | None = None,
    name: str | None = None,
) -> Callable[[F], F]:
    """Declare ``async def tool(ctx, args: ArgsModel) -> ResultModel`` with its capability
    row fields; a ``Toolbox`` method takes ``(self, ctx, args)`` (a function defined outside
    the class may take the toolbox first, annotated with its class).

    The docstring is the description; its first sentence must tell the tool apart.
    """

    def decorate(func: F) -> F:
        setattr(func, DECLARATION, declare(func))
        return func

    def declare(func: Callable[..., Any]) -> ToolSpec:
        if not inspect.iscoroutinefunction(func):
            raise TypeError(f"tool {func.__name__} must be async def")
        hints = typing.get_type_hints(func)
        params = list(inspect.signature(func).parameters)
        if len(params) not in (2, 3):
            raise TypeError(f"tool {func.__name__} must take (ctx, args) or (self, ctx, args)")
        args_model, result_model = hints.get(params[-1]), hints.get("return")
        for what, model in (("argument", args_model), ("result", result_model)):
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise TypeError(f"tool {func.__name__}: {what} type must be a pydantic model")
        box = hints.get(params[0]) if len(params) == 3 else None
        return ToolSpec(
            name=name or func.__name__,
            func=func,
            args=typing.cast(type[BaseModel], args_model),
            result=typing.cast(type[BaseModel], result_model),
            title=title,
            description=inspect.cleandoc(func.__doc__ or ""),
            process_reach=capability.process_reach,
            tmux_effects=tuple(capability.tmux_effects),
            output_classes=tuple(capability.output_classes),
            may_expose_secrets=capability.may_expose_secrets,
            may_return_untrusted_content=capability.may_return_untrusted_content,
            amplifies_future_input=capability.amplifies_future_input,
            input_literalization=dict(input_literalization or {}),
            nested_authority=tuple(nested_authority),
            args_factory=args_factory,
            toolbox=box if isinstance(box, type) and issubclass(box, Toolbox) else None,
        )

    return decorate


@functools.cache
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema for arguments, made once (rows, listing and rules share it)."""
    return model.model_json_schema()


@functools.cache
def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema for answers (serialization mode), made once."""
    return model.model_json_schema(mode="serialization")


def spec_of(func: object) -> ToolSpec | None:
    """The declaration ``@tool`` attached to ``func``, if any."""
    spec = getattr(func, DECLARATION, None)
    return spec if isinstance(spec, ToolSpec) else None

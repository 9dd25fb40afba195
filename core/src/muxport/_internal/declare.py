"""How a toolset declares a tool: the ``@tool`` decorator and the ``ToolSpec`` it yields.

A tool is a plain ``async def fn(ctx, args) -> Result`` (or a method of a ``Toolbox``,
an object with a lifespan) whose argument and result types are pydantic models; the
decorator records the capability row fields (docs/plugin-contract.md) and the registry
derives everything else from the signature.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypedDict, TypeVar, Unpack

from pydantic import BaseModel

from muxport._internal.answers import answer_schema
from muxport._internal.schemas import plain, without_nested_prose

if TYPE_CHECKING:
    from muxport._internal.tmuxclient import Tmux

# What kind of tool it is: the core's rules and the annotations attach to the kind, never
# to a toolset's or a tool's name (docs/plugin-contract.md, "Kinds").
Kind = Literal["read", "change", "execute", "delete"]
ProcessReach = Literal[
    "none", "configured-process", "pane-input", "pane-command", "host-command"
]
Effect = Literal["observe", "change", "delete"]
OutputClass = Literal[
    "tmux-metadata", "terminal-content", "process-environment", "configured-command"
]
Literalization = Literal["double-hash-once", "validated-variable-name"]

EFFECT_ORDER: tuple[Effect, ...] = ("observe", "change", "delete")

F = TypeVar("F", bound=Callable[..., Awaitable[BaseModel]])
# Builds the argument model once the nested authority is known (the read batch only).
ArgsFactory = Callable[[Mapping[str, "ToolSpec"]], type[BaseModel]]

DECLARATION = "__muxport_tool__"


class Changes(TypedDict, total=False):
    kind: Kind
    process_reach: ProcessReach
    tmux_effects: Sequence[Effect]
    output_classes: Sequence[OutputClass]
    may_expose_secrets: bool
    may_return_untrusted_content: bool
    amplifies_future_input: bool
    idempotent: bool
    read_only: bool | None


@dataclass(frozen=True)
class Capability:
    """What kind of tool it is, and what it may do and return, under the capability row's
    own field names (docs/plugin-contract.md). Start from a preset and vary it with
    ``replace``."""

    kind: Kind
    process_reach: ProcessReach
    tmux_effects: Sequence[Effect]
    output_classes: Sequence[OutputClass]
    may_expose_secrets: bool
    may_return_untrusted_content: bool
    amplifies_future_input: bool = False
    # The same call again changes nothing more (a read is idempotent without saying so);
    # it becomes the idempotentHint annotation (docs/client-fit.md).
    idempotent: bool = False
    # None: read-only exactly when it observes only and reaches no process.
    read_only: bool | None = None

    # The presets, set below (docs/plugin-contract.md, "Capability rows"): a tool starts
    # from one, ``@tool(Capability.READ)``, and varies it with ``replace``.
    READ: ClassVar[Capability]
    CHANGE: ClassVar[Capability]
    SPAWN: ClassVar[Capability]
    INPUT: ClassVar[Capability]
    COMMAND: ClassVar[Capability]
    DELETE: ClassVar[Capability]

    def __post_init__(self) -> None:  # kept as tuples, whatever sequence was given
        object.__setattr__(self, "tmux_effects", tuple(self.tmux_effects))
        object.__setattr__(self, "output_classes", tuple(self.output_classes))

    def replace(self, **changes: Unpack[Changes]) -> Capability:
        """This capability with the given fields changed."""
        return dataclasses.replace(self, **changes)


# The presets (docs/plugin-contract.md has the table): reading tmux state, changing it,
# starting a pane's configured process, sending input, running a command, deleting.
META: tuple[OutputClass, ...] = ("tmux-metadata",)
OBSERVE_CHANGE: tuple[Effect, ...] = ("observe", "change")
READ = Capability("read", "none", ("observe",), META, True, True)
CHANGE = Capability("change", "none", OBSERVE_CHANGE, META, False, False)
SPAWN = Capability("execute", "configured-process", OBSERVE_CHANGE, META, False, True)
INPUT = Capability("execute", "pane-input", OBSERVE_CHANGE, META, False, False)
COMMAND = Capability(
    "execute", "pane-command", OBSERVE_CHANGE, ("terminal-content", *META), True, True
)
DELETE = Capability("delete", "none", ("observe", "delete"), META, False, False)
Capability.READ, Capability.CHANGE, Capability.SPAWN = READ, CHANGE, SPAWN
Capability.INPUT, Capability.COMMAND, Capability.DELETE = INPUT, COMMAND, DELETE


class Toolbox:
    """A toolset object with a lifespan, for tools declared as its methods: made once per
    server before the first call (``__init__`` without arguments, then ``start``) and closed
    at shutdown (``aclose``). Register the class: ``registry.add(MyToolbox)``."""

    async def start(self, tmux: Tmux) -> None:
        """Called once the server is connected, before any tool of this toolbox runs."""

    async def aclose(self) -> None:
        """Called at shutdown (remove private files, stop clients); must not raise."""


@dataclass(frozen=True, kw_only=True)
class ToolSpec(Capability):
    """Everything the core knows about one tool; ``toolset`` is filled in by the registry."""

    name: str
    func: Callable[..., Awaitable[BaseModel]]
    args: type[BaseModel]
    result: type[BaseModel]
    title: str
    description: str
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
            **vars(capability),
            input_literalization=dict(input_literalization or {}),
            nested_authority=tuple(nested_authority),
            args_factory=args_factory,
            toolbox=box if isinstance(box, type) and issubclass(box, Toolbox) else None,
        )

    return decorate


@functools.cache
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema for arguments in the plain subset, made once (rows, listing
    and rules share it; docs/client-fit.md)."""
    return plain(model.model_json_schema(), nullable=False)


@functools.cache
def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema for answers (serialization mode, plain subset), made once, as
    ``answer_dict`` keeps answers valid (what no model reads is optional)."""
    return answer_schema(model, without_nested_prose(
        plain(model.model_json_schema(mode="serialization"), nullable=True)
    ))


def spec_of(func: object) -> ToolSpec | None:
    """The declaration ``@tool`` attached to ``func``, if any."""
    spec = getattr(func, DECLARATION, None)
    return spec if isinstance(spec, ToolSpec) else None

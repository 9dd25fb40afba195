"""Which tools a client may call: LIBTMUX_TOOLSETS, LIBTMUX_TOOLS, LIBTMUX_EXCLUDE_TOOLS (§3).

Parsed before tmux is touched; evaluated once against the loaded manifest and frozen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from muxport._internal.errors import StartupError

# The default selection: configuration, the only place the core names the first-party
# toolsets (policy follows each tool's declared kind, never a toolset's name). A third-party
# toolset is never in it: off until selected by name (docs/plugin-contract.md).
FIRST_PARTY = ("inspect", "manage", "execute", "teardown")
DEFAULT_CREATED = FIRST_PARTY
DEFAULT_EXISTING = ("inspect", "manage", "execute")


@dataclass(frozen=True)
class SelectionRequest:
    """What the user asked for; ``toolsets is None`` means "the default"."""

    toolsets: tuple[str, ...] | None
    tools: tuple[str, ...]
    exclude: tuple[str, ...]
    source: str


def _tokens(raw: str, what: str) -> tuple[str, ...]:
    if raw.strip() == "":
        return ()
    tokens = tuple(token.strip() for token in raw.split(","))
    if any(token == "" for token in tokens):
        raise StartupError(
            f"{what} has an empty name in {raw!r}; separate names with single commas"
        )
    return tokens


def parse_request(
    env: Mapping[str, str],
    toolsets_flag: str | None,
    tool_flags: Sequence[str],
    exclude_flags: Sequence[str],
) -> SelectionRequest:
    """Flags win over the environment; an empty token anywhere stops startup."""
    if toolsets_flag is not None:
        toolsets: tuple[str, ...] | None = _tokens(toolsets_flag, "--toolsets")
        source = "flags"
    elif "LIBTMUX_TOOLSETS" in env:
        toolsets = _tokens(env["LIBTMUX_TOOLSETS"], "LIBTMUX_TOOLSETS")
        source = "environment"
    else:
        toolsets, source = None, "default"
    if tool_flags:
        tools = tuple(t for flag in tool_flags for t in _tokens(flag, "--tool"))
    else:
        tools = _tokens(env.get("LIBTMUX_TOOLS", ""), "LIBTMUX_TOOLS")
    if exclude_flags:
        exclude = tuple(t for flag in exclude_flags for t in _tokens(flag, "--exclude-tool"))
    else:
        exclude = _tokens(env.get("LIBTMUX_EXCLUDE_TOOLS", ""), "LIBTMUX_EXCLUDE_TOOLS")
    return SelectionRequest(toolsets, tools, exclude, source)


def check_names(
    request: SelectionRequest, installed: Mapping[str, Sequence[str]], broken: Mapping[str, str]
) -> None:
    """Unknown toolsets and tools stop startup, listing the valid names.

    ``installed`` maps each loaded toolset to its tool names; ``broken`` maps a
    toolset whose plugin failed to load to its distribution and error.
    """
    known_sets = sorted(set(installed) | set(broken))
    for name in request.toolsets or ():
        if name in broken:
            raise StartupError(f"toolset {name} failed to load: {broken[name]}")
        if name not in installed:
            remedy = f"; install it with: pip install muxport-{name}" if name in FIRST_PARTY else ""
            listed = ", ".join(known_sets) or "none"
            raise StartupError(f"toolset {name} is not installed{remedy} (installed: {listed})")
    all_tools = sorted(t for tools in installed.values() for t in tools)
    for name in (*request.tools, *request.exclude):
        if name not in all_tools:
            raise StartupError(
                f"unknown tool {name}; valid tool names: {', '.join(all_tools) or 'none'}"
            )


def resolve(
    request: SelectionRequest,
    installed: Mapping[str, Sequence[str]],
    created_daemon: bool,
    custom_config: bool,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The selected toolsets and the frozen, sorted tool names they and the lists give."""
    if request.toolsets is None:
        default = DEFAULT_CREATED if created_daemon and not custom_config else DEFAULT_EXISTING
        # Third-party toolsets are never on by default: installing one exposes nothing
        # until it is selected by name.
        toolsets = tuple(name for name in default if name in installed)
    else:
        toolsets = tuple(dict.fromkeys(request.toolsets))
    chosen = {tool for ts in toolsets for tool in installed.get(ts, ())}
    chosen |= set(request.tools)
    chosen -= set(request.exclude)
    return toolsets, tuple(sorted(chosen))

"""What the inspect modules share: capability row fields and small parsing helpers."""

from __future__ import annotations

from typing import Any

from muxport import Capability, InvalidArgument, PaneId, SessionId, WindowId, classify
from muxport.policy import without_plumbing
from pydantic import TypeAdapter, ValidationError

# Every inspect tool observes only; outputs differ per tool (docs/plugin-contract.md).
METADATA = Capability.READ
SCREEN = Capability.READ.replace(output_classes=["terminal-content", "tmux-metadata"])
CONFIGURED = Capability.READ.replace(output_classes=["tmux-metadata", "configured-command"])


# scope -> (id prefix, listing tool): this toolset's listings name the ids of each kind
TARGETS = {
    "pane": ("%", "list_panes"), "window": ("@", "list_windows"), "session": ("$", "list_sessions")
}
# scope -> the exact-id argument type, checking a target as an argument of that kind
EXACT: dict[str, TypeAdapter[Any]] = {
    "pane": TypeAdapter(PaneId), "window": TypeAdapter(WindowId), "session": TypeAdapter(SessionId)
}


def scoped_target(scope: str, target: str | None, tool: str) -> str | None:
    """The exact id a session/window/pane scope needs (None for the server scope)."""
    if scope not in TARGETS:
        return None
    prefix, listing = TARGETS[scope]
    if target is None:
        raise InvalidArgument(
            f"{tool} with scope {scope} needs target: a {scope} id like {prefix}1 from {listing} "
            "(or use scope server for the global value)"
        )
    try:
        checked: str = EXACT[scope].validate_python(target)
    except ValidationError as exc:
        first = exc.errors()[0]
        why = first.get("ctx", {}).get("error") or first["msg"]
        raise InvalidArgument(f"target for scope {scope}: {why}") from None
    return checked


def scope_of_target(target: str) -> str | None:
    """Which scope an id names ($ session, @ window, % pane)."""
    for scope, (prefix, _) in TARGETS.items():
        if target.startswith(prefix):
            return scope
    return None


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def target_missing(stderr: str) -> bool:
    return classify(stderr) == "missing"


def scope(session_id: str | None = None, window_id: str | None = None) -> list[str]:
    """``-t`` / ``-a`` / ``-s`` arguments for list-windows and list-panes."""
    if window_id:
        return ["-t", window_id]
    if session_id:
        return ["-s", "-t", session_id]
    return ["-a"]


HIDDEN_FIELD = "rows of muxport's own runs (typed lines, markers) left out"


def shown(rows: list[str]) -> tuple[list[str], list[int]]:
    """``rows`` as a read shows them, without muxport's run plumbing (``without_plumbing``;
    docs/answers.md, "Plumbing"), and how many rows were left out before each kept line
    (one more count: after the last)."""
    lines: list[str] = []
    hidden = [0]
    for row in rows:
        line = without_plumbing(row)
        if line is None:
            hidden[-1] += 1
        else:
            lines.append(line)
            hidden.append(0)
    return lines, hidden

"""Resources under ``tmux://``: the capability report, the session listing, and templates
for a session's windows, a window's panes and a pane's screen (docs/client-fit.md).

Each listing or screen is answered by the tool that answers it as a call, through
the same dispatch: the same selection (a resource whose tool is not selected is not
offered and not served), argument checks, line budgets and read-only hook check. A
URI names an id by its number (``tmux://panes/3/screen`` is pane ``%3``): ``%`` cannot
stand unescaped in a URI, and the path already says which kind of id it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

CAPABILITIES_URI = "tmux://capabilities"
SESSIONS_URI = "tmux://sessions"
NUMBER = re.compile(r"[0-9]{1,9}")


@dataclass(frozen=True)
class Template:
    """One resource template: its URI template, the tool that answers it, and how a URI's
    path (``kind``/``number``/``leaf``) becomes that tool's arguments."""

    name: str
    title: str
    uri_template: str
    tool: str
    kind: str  # the first path segment: sessions, windows, panes
    leaf: str
    argument: str
    prefix: str
    description: str

    def arguments(self, number: str, query: dict[str, list[str]]) -> dict[str, Any]:
        arguments: dict[str, Any] = {self.argument: f"{self.prefix}{number}"}
        lines = query.get("lines", [])
        if self.leaf == "screen" and lines:
            # not a number: the tool's own check refuses it with its own message
            arguments["max_lines"] = int(lines[0]) if lines[0].isdigit() else lines[0]
        return arguments


TEMPLATES = (
    Template(
        "session-windows", "Windows of a session", "tmux://sessions/{session}/windows",
        "list_windows", "sessions", "windows", "session_id", "$",
        "The windows of session ${session} as list_windows answers them.",
    ),
    Template(
        "window-panes", "Panes of a window", "tmux://windows/{window}/panes",
        "list_panes", "windows", "panes", "window_id", "@",
        "The panes of window @{window} as list_panes answers them.",
    ),
    Template(
        "pane-screen", "A pane's screen", "tmux://panes/{pane}/screen{?lines}",
        "capture_pane", "panes", "screen", "pane_id", "%",
        "The visible screen of pane %{pane}, newest lines kept (lines: default 200, at most "
        "5000), as capture_pane answers it.",
    ),
)


class UnknownResource(LookupError):
    """No resource has this URI; the message names the ones that exist."""


def route(uri: str, selected: frozenset[str]) -> tuple[str, dict[str, Any]]:
    """The (tool, arguments) that answer ``uri``; UnknownResource when none does."""
    parts = urlsplit(uri)
    if uri == SESSIONS_URI and "list_sessions" in selected:
        return "list_sessions", {}
    segments = parts.path.strip("/").split("/")
    if parts.scheme == "tmux" and len(segments) == 2 and NUMBER.fullmatch(segments[0]):
        for template in TEMPLATES:
            if (template.kind, template.leaf) == (parts.netloc, segments[1]):
                if template.tool in selected:
                    return template.tool, template.arguments(segments[0], parse_qs(parts.query))
    offered = [CAPABILITIES_URI] + [t.uri_template for t in templates(selected)]
    if "list_sessions" in selected:
        offered.insert(1, SESSIONS_URI)
    raise UnknownResource(
        f"no resource {uri} on this server; read one of: {', '.join(offered)} "
        "(ids by number: tmux://panes/3/screen is pane %3)"
    )


def templates(selected: frozenset[str]) -> list[Template]:
    """The templates whose tools are selected."""
    return [template for template in TEMPLATES if template.tool in selected]

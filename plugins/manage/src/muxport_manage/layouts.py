"""Which layouts may reach tmux: the five presets, and checked ``#{window_layout}`` strings.

tmux 3.3a crashes the whole server on ``select-layout NAME`` when NAME is neither a
preset (or a unique prefix of one) nor starts with a hex digit (docs/tmux-facts.md, layouts). So
nothing the client typed is sent as is: names are resolved here to a full preset
name, and anything else must parse as a layout string with a matching checksum.
"""

from __future__ import annotations

import re

from muxport import InvalidArgument

PRESETS = ("even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled")
_HEAD = re.compile(r"[0-9a-fA-F]{4},")
_GEOMETRY = re.compile(r"\d{1,5}x\d{1,5},\d{1,5},\d{1,5}")
_PANE = re.compile(r",\d{1,9}")
HOW_TO_GET = "get_window_info returns a window's layout string"


def checksum(body: str) -> int:
    """tmux's layout checksum (layout-custom.c) over the text after ``xxxx,``."""
    csum = 0
    for byte in body.encode():
        csum = ((csum >> 1) + ((csum & 1) << 15) + byte) & 0xFFFF
    return csum


def _cell(text: str, at: int) -> int:
    """Parse one cell starting at ``at``; the index after it, or -1 when malformed."""
    geometry = _GEOMETRY.match(text, at)
    if geometry is None:
        return -1
    at = geometry.end()
    pane = _PANE.match(text, at)
    if pane is not None and not text.startswith("x", pane.end()):
        return pane.end()
    if at < len(text) and text[at] in "{[":
        close = "}" if text[at] == "{" else "]"
        while True:
            at = _cell(text, at + 1)
            if at < 0 or at >= len(text):
                return -1
            if text[at] == close:
                return at + 1
            if text[at] != ",":
                return -1
    return at


def check_layout_string(text: str) -> str:
    """``text`` if it is a well-formed layout string whose checksum matches."""
    body = text[5:]
    if _cell(body, 0) != len(body):
        raise InvalidArgument(
            f"layout {text!r} is not a layout string (checksum,WxH,X,Y followed by ,pane or "
            f"{{...}} / [...]); {HOW_TO_GET}, or pass a preset: {', '.join(PRESETS)}"
        )
    if int(text[:4], 16) != checksum(body):
        raise InvalidArgument(
            f"layout {text!r} has checksum {text[:4]} but its text sums to "
            f"{checksum(body):04x}; it was altered. Pass it exactly as get_window_info "
            f"returned it, or a preset: {', '.join(PRESETS)}"
        )
    return text


def resolve(requested: str) -> tuple[str, str | None]:
    """What to send to tmux for ``requested``, and a note when a name was expanded."""
    text = requested.strip()
    if _HEAD.match(text):
        return check_layout_string(text), None
    name = text.lower().replace("_", "-")
    if name in PRESETS:
        return name, None
    candidates = [preset for preset in PRESETS if name and preset.startswith(name)]
    if len(candidates) == 1:
        return candidates[0], f"{requested!r} was taken as {candidates[0]}"
    if candidates:
        raise InvalidArgument(
            f"layout {requested!r} is ambiguous: it could be {' or '.join(candidates)}; "
            "pass more of the name"
        )
    raise InvalidArgument(
        f"unknown layout {requested!r}; pass one of {', '.join(PRESETS)} (or a unique "
        f"abbreviation such as even-h), or a layout string ({HOW_TO_GET})"
    )

"""tmux ``-F`` formats and the records they read back (docs/plugin-contract.md,
"muxport.formats"; why a tool never splits tmux's output itself: docs/tmux-facts.md,
"Format output").

A format from ``fmt`` prints every value through ``#{q:}``; ``records``, ``head`` and
``parse`` read it back exactly on every tmux version. ``apply`` runs a command and reads
its target back in the same invocation.
"""

from muxport._internal.facts import OBJECT_KINDS, literal
from muxport._internal.objects import (
    END,
    PANE_FIELDS,
    SEP,
    SESSION_FIELDS,
    WINDOW_FIELDS,
    Pane,
    Session,
    Window,
    apply,
    fmt,
    head,
    parse,
    parse_pane,
    records,
    undo_name_dollar,
)

__all__ = [
    "END",
    "OBJECT_KINDS",
    "PANE_FIELDS",
    "SEP",
    "SESSION_FIELDS",
    "WINDOW_FIELDS",
    "Pane",
    "Session",
    "Window",
    "apply",
    "fmt",
    "head",
    "literal",
    "parse",
    "parse_pane",
    "records",
    "undo_name_dollar",
]

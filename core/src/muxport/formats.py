"""tmux ``-F`` formats and the records they read back (docs/plugin-contract.md,
"muxport.formats"; why a tool never splits tmux's output itself: docs/tmux-facts.md,
"Format output").

A format from ``fmt`` prints every value through ``#{q:}``; ``records``, ``head`` and
``parse`` read it back exactly on every tmux version. ``apply`` runs a command and reads
its target back in the same invocation. ``Session``, ``Window`` and ``Pane`` carry their
fields (``Pane.FIELDS``) and ``Pane.read`` marks the caller's pane.
"""

from muxport._internal.facts import literal
from muxport._internal.objects import (
    Pane,
    Session,
    Window,
    apply,
    fmt,
    head,
    parse,
    records,
    undo_name_dollar,
)

__all__ = [
    "Pane",
    "Session",
    "Window",
    "apply",
    "fmt",
    "head",
    "literal",
    "parse",
    "records",
    "undo_name_dollar",
]

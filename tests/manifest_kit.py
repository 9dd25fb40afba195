"""What the manifest tests declare their tools with: empty models and two capabilities."""

from __future__ import annotations

from muxport import CHANGE, READ, Args, Result


class NoArgs(Args):
    pass


class Nothing(Result):
    pass


QUIET = READ.replace(may_expose_secrets=False, may_return_untrusted_content=False)
CHANGED = CHANGE.replace(tmux_effects=["change"])

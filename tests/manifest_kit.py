"""What the manifest tests declare their tools with: empty models and two capabilities."""

from __future__ import annotations

from muxport import Args, Capability, Result


class NoArgs(Args):
    pass


class Nothing(Result):
    pass


QUIET = Capability.READ.replace(may_expose_secrets=False, may_return_untrusted_content=False)
CHANGED = Capability.CHANGE.replace(tmux_effects=["change"])

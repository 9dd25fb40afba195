"""Where the served tmux server runs: the ONE question the frames and the run ask about
another host (docs/run-outcomes.md, "A server on another host"). Every far-host check of
frames/ and run/ goes through ``far_host``, so that what answers it can change here alone.
"""

from __future__ import annotations

from muxport import Tmux


def far_host(tmux: Tmux) -> str | None:
    """The served server's host when it is another one (``muxport --ssh``), else None:
    its pids, terminals and files are not this machine's."""
    return None if tmux.host.local else tmux.host.name

"""Shell configurations whose prompt hooks work in the shell itself (the way prompt
frameworks, zsh-autosuggestions and pyenv's virtualenv hook do), for tests of runs sent
back to back: between commands such a shell keeps its terminal in canonical mode, as a
pending ``read`` does (docs/run-outcomes.md, "Before typing").

``HOOKS`` maps a case name to the shell and the lines of its rc file; ``ZSH_PLUGINS`` are
the Debian packages' paths (``PLUGINS_INSTALLED``: whether this machine has them).
"""

from __future__ import annotations

import os

BUSY_LOOP = "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"  # builtins only, no child
ZSH_PLUGINS = (
    "source /usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh\n"
    "source /usr/share/zsh-syntax-highlighting/zsh-syntax-highlighting.zsh\n"
)
PLUGINS_INSTALLED = all(os.path.exists(line.split()[1]) for line in ZSH_PLUGINS.splitlines())
HOOKS = {
    "bash-prompt-command": ("bash", f"PROMPT_COMMAND='{BUSY_LOOP}'"),
    "zsh-precmd": ("zsh", f"precmd() {{ {BUSY_LOOP}; }}"),
    "zsh-plugins": ("zsh", ZSH_PLUGINS),
}

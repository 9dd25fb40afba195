"""Helpers shared by the execute test modules (run, reach and input-wait tests).

Imported by name: pytest's ``pythonpath`` setting puts this folder on ``sys.path``.
"""

from __future__ import annotations

from typing import Any

from muxport.testing import answer_of
from muxport_execute.run.answer import RunAnswer

# Quoting a run must carry to the shell untouched: command substitution, both kinds of
# quotes, a tab and tmux's own ``#{...}`` formats (POSIX shells).
POSIX_QUOTING = (
    "x=$(printf '%s' \"it's\")\n"
    'echo "$x" \'say "hi"\' `echo back`\n'
    "printf '%s\\n' 'a\tb' | od -An -tx1\n"
    "echo '#{pane_id}' \"#{pane_id}\" ; echo done"
)
QUOTING_OUT = ['it\'s say "hi" back', " 61 09 62 0a", "#{pane_id} #{pane_id}", "done"]


def filled(answer: dict[str, Any]) -> dict[str, Any]:
    """A run's answer with the fields left out at their default put back (the output
    schema gives each default; ``test_execute_run`` checks that they are left out)."""
    return {**RUN_DEFAULTS, **answer}


RUN_DEFAULTS = {
    key: info.default for key, info in RunAnswer.model_fields.items()
    if not info.is_required() and info.default is not None and info.default_factory is None
}


async def call(client: Any, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool, require that it is no tool error, and return its answer as a program
    reads it (``answer_of``: with what no model reads, from _meta; a run's ``filled``)."""
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content[0].text
    data = answer_of(result)
    return filled(data) if name in ("run_shell_command", "wait_for_run") else data


async def run(client: Any, pane: str, command: str, **extra: Any) -> dict[str, Any]:
    return await call(client, "run_shell_command", {"pane_id": pane, "command": command, **extra})


# A ksh93 rc file as a user has one (after Debian's skeleton .kshrc): emacs editing,
# tracked aliases, a KEYBD trap (a trap the frame must save and restore), ``cd`` aliased
# to a function that keeps the prompt's directory, a prompt with the history number.
KSH_PROFILE = r"""ulimit -c 0
export VISUAL=vi EDITOR=vi PAGER=less
set -o emacs -o trackall -o globstar
HISTSIZE=500
alias ll='ls -lFb' md=mkdir grep='command -x grep'
trap '.sh.edchar=${keymap[${.sh.edchar}]:-${.sh.edchar}}' KEYBD
keymap=([$'\eOD']=$'\eb' [$'\eOC']=$'\ef' [$'\e[1~']=$'\ca' [$'\e[4~']=$'\ce')
function _cd {
  "cd" "$@" || return
  case $PWD in ("$HOME"*) _pwd=\~${PWD#"$HOME"};; (*) _pwd=$PWD;; esac
}
alias cd=_cd
_cd .
PS1='$_pwd [!]$ '
"""

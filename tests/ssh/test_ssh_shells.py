"""Far shells with busy prompt hooks (issue 19 over --ssh): a far server's panes are
checked from the screen alone before typing (docs/run-outcomes.md, "A server on another
host"), so a shell still in its prompt hooks (the terminal canonical) gets the typed line
in its terminal's queue, and its line editor takes it once it starts: 20 runs back to
back, no gap, each exact."""

from __future__ import annotations

import pytest
from muxport.testing import CheckedCalls, eventually_blocking
from muxport.testing.farhost import FarServer
from muxport.testing.hooks import HOOKS, PLUGINS_INSTALLED

pytestmark = pytest.mark.timeout(240)


def rc_window(server: FarServer, name: str) -> str:
    """A window of the far server whose shell has case ``name``'s rc file, at its prompt."""
    shell, rc = HOOKS[name]
    home = server.dir / f"rc-{name}"
    home.mkdir(mode=0o755)
    prompt = "unsetopt PROMPT_SP\nPROMPT='$ '\n" if shell == "zsh" else "PS1='$ '\n"
    if shell == "zsh":
        (home / ".zshrc").write_text(prompt + rc + "\n")
        command = f"env ZDOTDIR={home} zsh -i"
    else:
        (home / "bashrc").write_text(prompt + rc + "\n")
        command = f"bash --noprofile --rcfile {home}/bashrc -i"
    pane = server.cmd("new-window", "-P", "-F", "#{pane_id}", command).strip()
    eventually_blocking(lambda: server.lines("capture-pane", "-p", "-t", pane),
                        lambda rows: "$" in (row.rstrip() for row in rows),
                        what=f"the far {shell}'s prompt", within=20)
    return pane


@pytest.mark.parametrize("name", sorted(HOOKS))
async def test_back_to_back_runs_in_far_shells_with_busy_prompt_hooks(far, name):
    if name == "zsh-plugins" and not PLUGINS_INSTALLED:
        pytest.skip("zsh-autosuggestions and zsh-syntax-highlighting are not installed")
    async with far.client(["execute", "manage"]) as client:
        call = CheckedCalls(client)
        await call("create_session", {"session_name": "hooks"})  # the far daemon's first
        p = rc_window(far.server(), name)
        for n in range(20):  # no gap between them
            done = await call("run_shell_command", {"pane_id": p, "command": f"echo run{n}"})
            assert (done["outcome"], done["output"], done["exit_status"]) == (
                "completed", [f"run{n}"], 0), (n, done)

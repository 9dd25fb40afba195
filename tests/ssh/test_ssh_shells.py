"""Far shells with busy prompt hooks (issue 19 over --ssh): a far server's panes are
checked from the screen alone before typing (docs/run-outcomes.md, "A server on another
host"), so a shell still in its prompt hooks (the terminal canonical) gets the typed line
in its terminal's queue, and its line editor takes it once it starts: 20 runs back to
back, no gap, each exact."""

from __future__ import annotations

import pytest
from muxport.testing import CheckedCalls, eventually, hooks

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("name", sorted(hooks.HOOKS))
async def test_back_to_back_runs_in_far_shells_with_busy_prompt_hooks(far, name):
    if name == "zsh-plugins" and not hooks.PLUGINS_INSTALLED:
        pytest.skip("zsh-autosuggestions and zsh-syntax-highlighting are not installed")
    async with far.client(["execute", "manage"]) as client:
        call = CheckedCalls(client)
        await call("create_session", {"session_name": "hooks"})  # the far daemon's first
        p = far.server().rc_window(*hooks.HOOKS[name], name)
        for n in range(20):  # no gap between them
            done = await call("run_shell_command", {"pane_id": p, "command": f"echo run{n}"})
            assert (done["outcome"], done["output"], done["exit_status"]) == (
                "completed", [f"run{n}"], 0), (n, done)


ZSH = "HISTSIZE=100; SAVEHIST=100"
HISTORIES = {  # the far shell, its rc lines, how the person lists its history
    "bash": ("bash", "HISTSIZE=100", "history"),
    "zsh": ("zsh", ZSH, "fc -ln 1"),
    "zsh-inc-append": ("zsh", ZSH + "; setopt incappendhistory", "fc -ln 1"),
    "zsh-share": ("zsh", ZSH + "; setopt sharehistory extendedhistory", "fc -ln 1"),
}
MINE = ("echo before-$((6*7))", "echo after-$((6*7))")
LONG = "printf '%s' '" + "A" * 4500 + "' | wc -c"  # through a tmux buffer, not typed


def muxport_lines(text: str) -> list[str]:
    return [row for row in text.splitlines() if ": /;" in row or "muxport-run-" in row]


@pytest.mark.parametrize("name", sorted(HISTORIES))
async def test_no_muxport_line_in_a_far_shells_history(far, name):
    """A person's command, three runs (one through a buffer), the person's other command,
    the history listed and the shell left: neither the list nor the file holds a line
    of muxport's, and each of the person's lines once (zsh without HIST_IGNORE_SPACE)."""
    shell, rc, listing = HISTORIES[name]
    async with far.client(["execute", "inspect", "manage"]) as client:
        call = CheckedCalls(client)
        await call("create_session", {"session_name": "history"})  # the far daemon's first
        server = far.server()
        p = server.rc_window(shell, rc, name)
        home = server.dir / name

        async def person(line: str, shows: str) -> None:
            await call("send_keys", {"pane_id": p, "keys": [line, "Enter"]})
            seen = await call("wait_for_text", {"pane_id": p, "patterns": [shows],
                                                "timeout": 10})
            assert seen["outcome"] in ("matched", "present_at_entry"), seen

        await person(MINE[0], "before-42")
        for command, out in (("echo one", "one"), (LONG, "4500"), ("echo three; exit 3", "three")):
            done = await call("run_shell_command", {"pane_id": p, "command": command})
            assert (done["outcome"], done["output"]) == ("completed", [out]), done
        await person(MINE[1], "after-42")
        await call("send_keys", {"pane_id": p, "keys": [f"{listing} >{home}/listed; exit",
                                                        "Enter"]})

        def panes() -> list[str]:
            return server.cmd("list-panes", "-a", "-F", "#{pane_id}").split()

        await eventually(panes, lambda ids: p not in ids, what=f"the far {shell} to exit")
    for text in ((home / "listed").read_text(), (home / "history").read_text()):
        assert muxport_lines(text) == [], text
        assert all(text.count(mine) == 1 for mine in MINE), text

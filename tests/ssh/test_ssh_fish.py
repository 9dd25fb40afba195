"""A far server's own fish with a person's configuration (issue 30 over --ssh): what its
config.fish prints stays out of the output, a prompt of fish's ending in ``>`` is typed
into, and ``read -P`` on a fish whose man-page completions are not generated yet answers
``waiting_for_input`` from the far host's /proc (docs/runs-and-waits.md, "fish")."""

from __future__ import annotations

import os
import shutil

import pytest
from muxport.testing import CheckedCalls, eventually_blocking
from muxport.testing.farhost import FarServer

pytestmark = pytest.mark.timeout(240)

# a person's config.fish: a function, a line printing on stdout and stderr, and fish's
# "informative" prompt, whose second row is a bare "> "
CONFIG = (
    "set -g fish_greeting ''\n"
    "function hello; echo hello from config.fish; end\n"
    "echo NOISE from config.fish\n"
    "echo NOISE on stderr >&2\n"
    "function fish_prompt\n"
    "    printf '[%s] %s@%s %s\\n> ' (date +%H:%M:%S) $USER (prompt_hostname) $PWD\n"
    "end\n"
)


def fish_window(server: FarServer, name: str) -> tuple[str, str]:
    """A new window of the far server running fish with ``CONFIG`` (its config and data
    in directory ``name`` of the far user's home), at its prompt; its pane id and the
    directory of its generated man-page completions."""
    home = server.dir / name
    made = [home, home / "fish", home / "fish" / "generated_completions"]
    for folder in made:
        folder.mkdir()
    (home / "fish" / "config.fish").write_text(CONFIG)
    for path in [*made, home / "fish" / "config.fish"]:
        os.chown(path, server.uid, server.gid)
    pane = server.cmd("new-window", "-P", "-F", "#{pane_id}",
                      f"env XDG_CONFIG_HOME={home} XDG_DATA_HOME={home} fish -i").strip()
    eventually_blocking(lambda: server.lines("capture-pane", "-p", "-t", pane),
                        lambda rows: any(row.rstrip() == ">" for row in rows),
                        what="the far fish's prompt", within=20)
    return pane, str(made[-1])


async def test_a_far_fish_with_a_person_s_configuration(far):
    async with far.client(["execute", "manage"]) as client:
        call = CheckedCalls(client)
        await call("create_session", {"session_name": "fish"})  # the far daemon's first
        pane, completions = fish_window(far.server(), "fish")
        for command, output, status in (("echo hi", ["hi"], 0), ("echo a; exit 3", ["a"], 3),
                                        ("hello", ["hello from config.fish"], 0)):
            done = await call("run_shell_command", {"pane_id": pane, "command": command})
            assert (done["outcome"], done["output"], done["exit_status"], done["frame"]) == (
                "completed", output, status, "typed"), done
        # as on a fish's first start: the run's fish finds no generated completions
        shutil.rmtree(completions)
        asked = await call("run_shell_command", {
            "pane_id": pane, "command": "read -P 'your name? ' x; echo got $x", "timeout": 8})
        assert (asked["outcome"], asked.get("prompt", [])[-1:]) == (
            "waiting_for_input", ["your name?"]), asked
        await call("paste_text", {"pane_id": pane, "text": "ann", "enter": True})
        done = await call("wait_for_run", {"run_id": asked["run_id"], "timeout": 20})
        assert (done["outcome"], done["output"][-1]) == ("completed", "got ann"), done

"""Each note that names a way out is measured by following it (issue 19): the keys the
note names are sent as it says, and the pane must be back at its shell prompt."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from muxport.testing import CheckedCalls, TmuxServer, eventually

pytestmark = pytest.mark.timeout(90)

TOOLSETS = ["execute", "inspect"]
# The programs of the issue, as a run starts them: (the program, its command, the answer
# expected, the keys the note must name, keys a person sent first). vim is typed into
# first: insert mode, where a bare :q! would be typed as text.
RUNS = [
    ("python3", "python3", "waiting_for_input", ["C-d"], None),
    ("less", "seq 2000 | less", "waiting_for_input", ["q"], None),
    ("man", "man ls", "waiting_for_input", ["q"], None),
    ("vim", "vim", "timed_out", ["Escape", ":q!", "Enter"], ["i", "unsaved text"]),
    ("sleep", "sleep 100", "timed_out", ["C-c"], None),
]


def named_keys(note: str, pane: str) -> list[str]:
    """The one send_keys list the note names for ``pane``, exactly as written."""
    found = re.findall(r"send_keys (\[[^\]]*\]) to " + re.escape(pane) + r"\b", note)
    assert len(found) == 1, note
    keys: list[str] = json.loads(found[0])
    return keys


async def back_at_prompt(call: CheckedCalls, pane: str, word: str) -> None:
    """The pane's shell runs the next command: it has its prompt back."""
    done = await call("run_shell_command", {"pane_id": pane, "command": f"echo {word}"})
    assert (done["outcome"], done["output"], done["exit_status"]) == ("completed", [word], 0)


@pytest.mark.parametrize("shell", ["bash", "zsh"])
@pytest.mark.parametrize(("program", "command", "outcome", "keys", "first"), RUNS,
                         ids=[r[0] for r in RUNS])
async def test_a_runs_note_names_the_way_out_that_works(
    stdio_client, shell_pane, shell, program, command, outcome, keys, first
):
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    p = shell_pane(shell).pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        got = await call("run_shell_command", {"pane_id": p, "command": command, "timeout": 3})
        assert got["outcome"] == outcome, got
        if first is not None:  # a person left it in another mode: the note still works
            await call("send_keys", {"pane_id": p, "keys": first})
            got = await call("wait_for_run", {"run_id": got["run_id"], "timeout": 1})
            assert got["outcome"] == outcome, got
        assert named_keys(got["note"], p) == keys, got["note"]
        await call("send_keys", {"pane_id": p, "keys": named_keys(got["note"], p)})
        done = await call("wait_for_run", {"run_id": got["run_id"], "timeout": 10})
        assert done["outcome"] == "completed", done
        await back_at_prompt(call, p, "back")


async def refusal(client: Any, pane: str) -> str:
    result = await client.call_tool("run_shell_command", {"pane_id": pane, "command": "true"})
    assert result.is_error, result.structured_content
    text: str = result.content[0].text
    return text


def foreground(server: TmuxServer, pane: str) -> str:
    return server.cmd("display-message", "-p", "-t", pane, "#{pane_current_command}").strip()


# what each program shows once it reads its keys: keys sent before that can be flushed
# when it sets up the terminal (python's readline dropped a C-d that came too early)
@pytest.mark.parametrize(("typed", "keys", "shown"), [
    ("python3 -q", ["C-d"], ">>>"), ("less /etc/passwd", ["q"], "root:"),
    ("vim", ["Escape", ":q!", "Enter"], "~"),
])
async def test_a_program_a_person_started_is_refused_naming_its_way_out(
    stdio_client, shell_pane, tmux_server, typed, keys, shown
):
    pane = shell_pane("bash")
    p = pane.pane_id
    async with stdio_client(toolsets=TOOLSETS) as client:
        call = CheckedCalls(client)
        pane.type(typed)
        name = typed.split()[0]
        await eventually(lambda: foreground(tmux_server, p), lambda now: now.startswith(name),
                         what=f"{name} in the foreground")
        await eventually(lambda: tmux_server.lines("capture-pane", "-p", "-t", p),
                         lambda rows: any(row.startswith(shown) for row in rows),
                         what=f"{name} showing {shown!r}")
        note = await refusal(client, p)
        assert named_keys(note, p) == keys, note
        await call("send_keys", {"pane_id": p, "keys": named_keys(note, p)})
        await eventually(lambda: foreground(tmux_server, p), lambda now: now == "bash",
                         what="bash in the foreground again")
        await back_at_prompt(call, p, "back")


async def test_a_python_shell_is_never_told_c_d(stdio_client, tmux_server, tmp_path: Path):
    """tmux names a Python script by its interpreter (xonsh as python3): the refusal of a
    pane whose own program is such a shell must not name C-d, which would end it."""
    script = tmp_path / "xonsh"  # stands in for xonsh: a shell written in Python
    script.write_text("#!/usr/bin/env python3\nwhile True:\n    input('xsh$ ')\n")
    script.chmod(0o755)
    p = tmux_server.cmd("new-session", "-d", "-P", "-F", "#{pane_id}", str(script)).strip()
    await eventually(lambda: tmux_server.lines("capture-pane", "-p", "-t", p),
                     lambda rows: any("xsh$" in row for row in rows), what="its prompt")
    assert foreground(tmux_server, p).startswith("python")  # how tmux names it
    async with stdio_client(toolsets=TOOLSETS) as client:
        note = await refusal(client, p)
    assert "xonsh is a shell" in note and "never C-d" in note, note
    assert not re.search(r"send_keys \[", note), note

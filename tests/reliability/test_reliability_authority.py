"""Authority: an excluded tool stays excluded however it is reached, and input is refused,
with nothing typed, into the caller's pane, a pane in a mode, and an attended pane.
"""

# The suite observes files, /proc and tmux, which send no events: bounded polls are the wait.
# ruff: noqa: ASYNC240

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from muxport.testing import TmuxServer, eventually
from reliability_kit import STATS, error_code

pytestmark = pytest.mark.timeout(120)
MARK = "typed-by-muxport"


async def require(client: Any, *names: str) -> None:
    listed = {t.name for t in (await client.list_tools()).tools}
    missing = [n for n in names if n not in listed]
    if missing:
        STATS.not_exercised.update(missing)
        pytest.fail(f"not installed yet, so not exercised: {missing}")


def cat_pane(server: TmuxServer, sandbox: Path, name: str) -> tuple[str, Path]:
    """A pane whose cat writes whatever is typed into it to a file."""
    out = sandbox / f"{name}.typed"
    out.touch()
    pane = server.shell_pane("bash")
    server.cmd("respawn-pane", "-k", "-t", pane.pane_id, f"stty -echo; exec cat > {out}")
    return pane.pane_id, out


def typing_calls(pane_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("send_keys", {"pane_id": pane_id, "keys": [MARK], "literal": True, "enter": True}),
        ("send_keys_batch", {"operations": [{"pane_id": pane_id, "keys": [MARK], "enter": True}]}),
        ("paste_text", {"pane_id": pane_id, "text": MARK + "\n"}),
        ("run_shell_command", {"pane_id": pane_id, "command": f"echo {MARK}", "timeout": 2}),
    ]


async def flushed(server: TmuxServer, pane_id: str, typed: Path) -> None:
    """Type a sentinel line after the attempts and wait until cat has written it: anything
    the attempts typed would be in the file before it (a pane in a mode gets no sentinel)."""
    if server.cmd("display-message", "-p", "-t", pane_id, "#{pane_in_mode}").strip() == "1":
        return
    server.cmd("send-keys", "-t", pane_id, "-l", "--", "sentinel")
    server.cmd("send-keys", "-t", pane_id, "Enter")
    await eventually(typed.read_text, lambda text: "sentinel" in text,
                     what=f"the sentinel in {typed}", within=5)


async def refused_everywhere(
    client: Any, pane_id: str, server: TmuxServer, typed: Path, why: str
) -> None:
    for tool, args in typing_calls(pane_id):
        result = await client.call_tool(tool, args)
        if tool == "send_keys_batch" and not result.is_error:
            rows = result.structured_content["results"]
            assert [r["success"] for r in rows] == [False], (why, rows)
        else:
            assert result.is_error, (why, tool, result.structured_content)
            assert error_code(result) in ("refused", "not_found"), (why, tool, result.meta)
    await flushed(server, pane_id, typed)
    assert MARK not in typed.read_text(), f"{why}: something was typed"
    assert MARK not in "\n".join(server.lines("capture-pane", "-p", "-t", pane_id)), why


async def test_excluded_tools_stay_excluded(stdio_client, tmux_server, sandbox, all_toolsets):
    pane_id, typed = cat_pane(tmux_server, sandbox, "excluded")
    excluded = ("send_keys", "capture_pane")
    async with stdio_client(toolsets=all_toolsets, exclude=excluded) as client:
        await require(client, "call_read_tools_batch", "send_keys_batch")
        listed = {t.name for t in (await client.list_tools()).tools}
        assert not set(excluded) & listed
        for tool, args in (
            ("send_keys", typing_calls(pane_id)[0][1]),
            ("capture_pane", {"pane_id": pane_id}),
        ):
            result = await client.call_tool(tool, args)
            assert result.is_error and error_code(result) == "tool_not_available", result
        batch = await client.call_tool(
            "call_read_tools_batch",
            {"operations": [{"tool": "capture_pane", "arguments": {"pane_id": pane_id}}]},
        )
        assert batch.is_error or batch.structured_content["succeeded"] == 0, batch
        keys = await client.call_tool("send_keys_batch", typing_calls(pane_id)[1][1])
        assert keys.is_error, "send_keys_batch typed although send_keys is excluded"
        assert error_code(keys) not in (None, "internal_error")
    await flushed(tmux_server, pane_id, typed)
    assert MARK not in typed.read_text()


async def test_caller_pane_is_refused(stdio_client, tmux_server, sandbox, all_toolsets):
    pane_id, typed = cat_pane(tmux_server, sandbox, "caller")
    caller_env = {"TMUX": f"{tmux_server.socket_path},1,0", "TMUX_PANE": pane_id}
    async with stdio_client(toolsets=all_toolsets, env=caller_env) as client:
        await require(client, "send_keys", "send_keys_batch", "paste_text", "run_shell_command")
        panes = (await client.call_tool("list_panes", {})).structured_content["panes"]
        assert [p["caller"] for p in panes if p["id"] == pane_id] == [True]
        await refused_everywhere(client, pane_id, tmux_server, typed, "caller pane")


async def test_modal_pane_is_refused(stdio_client, tmux_server, sandbox, all_toolsets):
    pane_id, typed = cat_pane(tmux_server, sandbox, "modal")
    tmux_server.cmd("copy-mode", "-t", pane_id)
    async with stdio_client(toolsets=all_toolsets) as client:
        await require(client, "send_keys", "send_keys_batch", "paste_text", "run_shell_command")
        await refused_everywhere(client, pane_id, tmux_server, typed, "pane in copy mode")
    assert tmux_server.cmd("display-message", "-p", "-t", pane_id, "#{pane_in_mode}").strip() == "1"


async def test_attended_pane_is_refused(stdio_client, tmux_server, sandbox, all_toolsets):
    pane_id, typed = cat_pane(tmux_server, sandbox, "attended")
    session = tmux_server.cmd("display-message", "-p", "-t", pane_id, "#{session_id}").strip()
    # A person's terminal: a real tty client, attached from a pane of another private server.
    outer = TmuxServer()
    try:
        outer.cmd(
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
            f"env -u TMUX {tmux_server.binary} -S {tmux_server.socket_path} "
            f"attach-session -t '{session}'",
        )
        await eventually(tmux_server.clients, what="the attached client", within=10)
        assert "read-only" not in tmux_server.clients()[0]
        async with stdio_client(toolsets=all_toolsets) as client:
            await require(client, "send_keys", "send_keys_batch", "paste_text", "run_shell_command")
            await refused_everywhere(client, pane_id, tmux_server, typed, "attended pane")
    finally:
        outer.kill()

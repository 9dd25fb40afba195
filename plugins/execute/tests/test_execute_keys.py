"""send_keys, send_keys_batch, paste_text, set_synchronize_panes: what arrives, and what is left."""

from __future__ import annotations

import anyio
from muxport.testing import CheckedCalls, tool_context
from muxport_execute.frames.typed_buffer import chunks
from muxport_execute.paste import PasteArgs, paste_text
from muxport_execute.run.table import RunTable


def signal(tmux_server, channel: str) -> str:
    return f"{tmux_server.binary} -S {tmux_server.socket_path} wait-for -S {channel}"


async def test_input_tools_over_stdio(stdio_client, tmux_server, shell_pane):
    pane = shell_pane("bash")
    odd = "p#{pane_id};'q' \"d\" ##"
    async with stdio_client(toolsets=["execute"]) as client:
        call = CheckedCalls(client)
        synced = await call("set_synchronize_panes",
                            {"window_id": pane.window_id, "enabled": False})
        batch = await call("send_keys_batch", {"operations": [
            # key names by name; "-X" and "a;" are option- and separator-shaped, sent as text
            {"pane_id": pane.pane_id, "keys": ["echo", "Space", "-X", "Space", "a;"],
             "enter": True},
            {"pane_id": pane.pane_id, "keys": signal(tmux_server, "keys-1"), "literal": True,
             "enter": True},
        ]})
        tmux_server.wait_for("keys-1")
        pasted = await call("paste_text", {
            "pane_id": pane.pane_id, "text": f"printf '%s\\n' '{odd}'", "enter": True})
        sent = await call("send_keys", {
            "pane_id": pane.pane_id, "keys": [signal(tmux_server, "keys-2")], "literal": True,
            "enter": True})
        tmux_server.wait_for("keys-2")
    assert synced == {"window_id": pane.window_id, "enabled": False,
                      "synchronized_pane_ids": []}
    assert batch["completed"] == 2 and batch["stopped_at"] is None
    assert [r["resolved_pane_ids"] for r in batch["results"]] == [[pane.pane_id]] * 2
    assert pasted == {"pane_id": pane.pane_id, "characters": len(odd) + 16, "lines": 1}
    assert sent == {"pane_id": pane.pane_id, "sent": 2, "resolved_pane_ids": [pane.pane_id]}
    screen = pane.screen(history=True)
    assert "$ echo -X a;" in screen and "-X a" in screen
    assert f"$ printf '%s\\n' '{odd}'" in screen  # typed exactly as given
    assert tmux_server.buffers() == []


async def test_batch_stops_or_continues_at_a_refused_row(mcp_client, tmux_server, shell_pane):
    good, moded = shell_pane("dash"), shell_pane("dash")
    tmux_server.cmd("copy-mode", "-t", moded.pane_id)
    rows = [{"pane_id": p.pane_id, "keys": ["C-l"]} for p in (good, moded, good)]
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        stop = await client.call_tool("send_keys_batch", {"operations": rows})
        go_on = await client.call_tool("send_keys_batch", {"operations": rows,
                                                          "on_error": "continue"})
    stopped = stop.structured_content
    assert stopped["count"] == 2 and stopped["stopped_at"] == 1 and stopped["completed"] == 1
    assert stopped["results"][1]["error_code"] == "refused"
    assert "copy-mode" in stopped["results"][1]["error"]
    assert stopped["results"][1]["resolved_pane_ids"] == [moded.pane_id]
    assert go_on.structured_content["count"] == 3
    assert [r["success"] for r in go_on.structured_content["results"]] == [True, False, True]


async def test_batch_refuses_without_send_keys_authority(mcp_client, shell_pane):
    pane = shell_pane("dash")
    async with mcp_client(toolsets=["execute"], exclude=("send_keys",)) as (client, _app):
        result = await client.call_tool("send_keys_batch", {"operations": [
            {"pane_id": pane.pane_id, "keys": ["C-l"]}]})
    assert result.is_error and result.meta["error_code"] == "refused"
    assert "send_keys" in result.content[0].text


async def test_large_paste_arrives_whole_and_leaves_no_buffer(mcp_client, tmux_server, shell_pane,
                                                              tmp_path):
    pane = shell_pane("bash")
    text = "".join(f"line {n} é;#{{pane_id}}\n" for n in range(1500))
    assert len(list(chunks(text))) > 2
    target = tmp_path / "pasted"
    pane.type(f"stty -echo; cat > {target}; {signal(tmux_server, 'pasted')}")
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        result = await client.call_tool("paste_text", {"pane_id": pane.pane_id, "text": text})
        assert not result.is_error, result.content[0].text
        await client.call_tool("send_keys", {"pane_id": pane.pane_id, "keys": ["C-d"]})
    tmux_server.wait_for("pasted")
    assert target.read_text() == text
    assert result.structured_content["lines"] == 1500
    assert tmux_server.buffers() == []


async def test_cancelled_paste_leaves_no_buffer(mcp_client, tmux_server, shell_pane, monkeypatch):
    pane = shell_pane("bash")
    seen: list[list[str]] = []
    async with mcp_client(toolsets=["execute"]) as (_client, app):
        tmux = app.server.services.tmux
        real_run = tmux.run
        with anyio.CancelScope() as scope:

            async def run_then_cancel(*commands, check=True):
                result = await real_run(*commands, check=check)
                if commands[0][0] == "set-buffer":
                    seen.append(tmux_server.buffers())
                    scope.cancel()  # the client went away after the first piece
                return result

            monkeypatch.setattr(tmux, "run", run_then_cancel)
            ctx = tool_context(app, "paste_text")
            text = "echo never\n" * 3000
            await paste_text(RunTable(), ctx, PasteArgs(pane_id=pane.pane_id, text=text))
        assert scope.cancelled_caught
    assert len(seen) == 1 and len(seen[0]) == 1 and seen[0][0].startswith("muxport-paste-")
    assert tmux_server.buffers() == []
    pane.run("true")
    assert not any("never" in line for line in pane.screen(history=True))


async def test_input_is_sent_once_when_a_hook_after_it_fails(mcp_client, tmux_server, shell_pane):
    """A failing after-send-keys / after-paste-buffer hook (docs/tmux-facts.md, "Hooks that
    fail"): the keys arrived, so the answer is sent, with a note; a retry would type twice."""
    pane = shell_pane("bash")
    for hook in ("after-send-keys", "after-paste-buffer", "after-set-buffer", "after-set-option"):
        tmux_server.cmd("set-hook", "-g", hook, "command-prompt")
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        keys = await client.call_tool("send_keys", {
            "pane_id": pane.pane_id, "keys": "echo typed-$((6*7)); " + signal(tmux_server, "k1"),
            "literal": True, "enter": True})
        tmux_server.wait_for("k1")
        pasted = await client.call_tool("paste_text", {
            "pane_id": pane.pane_id, "text": "echo pasted-$((6*7)); " + signal(tmux_server, "k2"),
            "enter": True})
        tmux_server.wait_for("k2")
        synced = await client.call_tool("set_synchronize_panes",
                                        {"window_id": pane.window_id, "enabled": True})
        ran = await client.call_tool("run_shell_command",
                                     {"pane_id": pane.pane_id, "command": "echo ran-$((6*7))"})
    for answer in (keys, pasted, synced, ran):
        assert not answer.is_error, answer.content[0].text
        note = answer.structured_content["note"]
        assert "no current client" in note and "do not call" in note, note
    assert ran.structured_content["output"] == ["ran-42"], ran.structured_content
    screen = pane.screen(history=True)
    assert sum(line == "typed-42" for line in screen) == 1
    assert sum(line == "pasted-42" for line in screen) == 1

"""list_panes marks the caller's pane (docs/architecture.md): true for the pane the launcher runs
in, false for the others, null outside tmux. The launcher runs INSIDE a pane of the test
server, driven by a small MCP client script that writes what it saw to a file and then
signals a tmux wait-for channel."""

from __future__ import annotations

import json
import shlex
import sys

from muxport.testing.clients import launcher

CLIENT_SCRIPT = r'''
import json, os, subprocess, sys, traceback

launcher, tmux, socket, out, channel = sys.argv[1:6]


def session(env):
    """initialize, list_panes and the capabilities report over raw JSON lines, then EOF."""
    proc = subprocess.Popen([launcher], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    def send(message):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()
    def reply(request_id):
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == request_id:
                return message
        raise RuntimeError("launcher closed stdout: " + proc.stderr.read())
    send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
          "capabilities": {}, "clientInfo": {"name": "pane-client", "version": "0"}}})
    reply(1)
    send({"method": "notifications/initialized"})
    send({"id": 2, "method": "tools/call", "params": {"name": "list_panes", "arguments": {}}})
    panes = reply(2)["result"]["structuredContent"]["panes"]
    send({"id": 3, "method": "resources/read", "params": {"uri": "tmux://capabilities"}})
    report = json.loads(reply(3)["result"]["contents"][0]["text"])
    proc.stdin.close()
    proc.wait(timeout=10)
    return {"caller": {p["id"]: p.get("caller") for p in panes}, "relation": report["caller"]}


results = {"pane": os.environ.get("TMUX_PANE")}
try:
    base = {k: v for k, v in os.environ.items() if not k.startswith("LIBTMUX_")}
    base.update(LIBTMUX_SOCKET_PATH=socket, LIBTMUX_TOOLSETS="inspect")
    results["env"] = session(base)
    # no TMUX/TMUX_PANE: the relation is proven by walking the process tree
    results["tree"] = session({k: v for k, v in base.items() if k not in ("TMUX", "TMUX_PANE")})
    results["other"] = session({**base, "TMUX": "/nonexistent/other.sock,1,0"})
except Exception:
    results["error"] = traceback.format_exc()
finally:
    with open(out, "w") as f:
        json.dump(results, f)
    subprocess.run([tmux, "-S", socket, "wait-for", "-S", channel], check=False)
'''


def test_list_panes_marks_the_caller_pane_inside_tmux(tmux_server, shell_pane, tmp_path):
    other = shell_pane("dash")
    script = tmp_path / "pane_client.py"
    script.write_text(CLIENT_SCRIPT)
    out = tmp_path / "result.json"
    channel = f"caller-{tmp_path.name}"
    command = shlex.join([sys.executable, str(script), launcher(), tmux_server.binary,
                          tmux_server.socket_path,
                          str(out), channel])
    inside = tmux_server.cmd("new-window", "-d", "-t", other.session_id, "-P", "-F",
                             "#{pane_id}", command).strip()
    tmux_server.wait_for(channel, timeout=60)
    results = json.loads(out.read_text())
    assert "error" not in results, results.get("error")
    assert results["pane"] == inside

    assert results["env"]["caller"] == {inside: True, other.pane_id: False}
    assert results["env"]["relation"]["relation"] == "inside"
    assert results["env"]["relation"]["pane_id"] == inside

    assert results["tree"]["caller"] == {inside: True, other.pane_id: False}
    assert results["tree"]["relation"]["how"] == "process tree"

    assert results["other"]["caller"] == {inside: False, other.pane_id: False}
    assert results["other"]["relation"]["relation"] == "other-server"


async def test_list_panes_marks_no_pane_outside_tmux(stdio_client, shell_pane):
    first, second = shell_pane("bash"), shell_pane("dash")
    async with stdio_client(toolsets=["inspect"]) as client:
        panes = (await client.call_tool("list_panes", {})).structured_content["panes"]
    assert {p["id"]: p.get("caller") for p in panes} == {first.pane_id: None, second.pane_id: None}
    assert all("caller" not in p for p in panes)  # absent outside tmux

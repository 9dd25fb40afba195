"""Claude Code, Gemini CLI and Codex connect to ``muxport --http`` as a user configures
them (README, "Remote clients over HTTP": the URL and an ``Authorization`` header, Codex's
token from a variable) and run a command. Refusals without the right token are
``tests/test_http.py``'s (Codex, refused, waits on its OAuth discovery past any bound)."""

from __future__ import annotations

import pytest
from muxport.testing import agents
from muxport.testing.http import serving_http
from muxport.testing.model_api import ModelStub

pytestmark = pytest.mark.timeout(300)


def test_each_client_runs_a_command_over_http(client, tmux_server, shell_pane):
    pane = shell_pane("bash").pane_id
    script = [("run_shell_command", {"pane_id": pane, "command": "echo over-http-$((6*7))"})]
    with serving_http(tmux_server.socket_path) as served:
        server = agents.Server("", url=served.url, token=served.token)
        with ModelStub(script=script) as stub:
            done = agents.run(client, server, stub.url, timeout=240)
    handed = stub.handed()
    assert any("over-http-42" in text for text in handed), (handed, done.stderr[-2000:])
    # ran in the pane through muxport (Gemini CLI has a run_shell_command of its own)
    assert "over-http-42" in tmux_server.lines("capture-pane", "-p", "-t", pane)

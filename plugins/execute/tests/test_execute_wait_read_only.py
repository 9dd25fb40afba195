"""wait_for_run is read-only (issue 30): it only waits for a run and collects it, so its
own tmux reads keep the read-only promise: a hook they would fire refuses the call, and
the run is collected once the hook is gone (README, "How the read-only promise is kept")."""

from __future__ import annotations

import pytest
from execute_kit import call, run

pytestmark = pytest.mark.timeout(60)


async def test_wait_for_run_is_read_only_and_guarded(mcp_client, shell_pane, tmux_server):
    pane = shell_pane("bash").pane_id
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["wait_for_run"].annotations.read_only_hint is True
        started = await run(client, pane, "sleep 4; echo done", timeout=0.2)
        assert started["outcome"] == "timed_out"
        # a hook on the command a look at the pane runs: the read would fire it
        tmux_server.cmd("set-hook", "-g", "after-capture-pane", "display-message -d 1 hi")
        try:
            refused = await client.call_tool(
                "wait_for_run", {"run_id": started["run_id"], "timeout": 0.2}
            )
        finally:
            tmux_server.cmd("set-hook", "-gu", "after-capture-pane")
        assert refused.is_error and refused.meta["error_code"] == "hook_present"
        assert "after-capture-pane" in refused.content[0].text
        done = await call(client, "wait_for_run", {"run_id": started["run_id"], "timeout": 10})
    assert (done["outcome"], done["exit_status"], done["output"]) == ("completed", 0, ["done"])

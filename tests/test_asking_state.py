"""The 2026-07-28 era of asking the person (docs/asking.md, "The two eras"): the
``requestState`` of an input-required result is sealed by the server and binds the answer
to the very call and question; driven by hand through the SDK's client over real stdio."""

from __future__ import annotations

import subprocess
from typing import Any

import mcp.types as types
from muxport.testing import Person, person_client


def exists(tmux_server: Any, target: str) -> bool:
    done = subprocess.run(
        [tmux_server.binary, "-S", tmux_server.socket_path, "list-panes", "-t", target],
        capture_output=True, timeout=10, check=False,
    )
    return done.returncode == 0


def env_inside(tmux_server: Any, pane_id: str) -> dict[str, str]:
    return {"TMUX": f"{tmux_server.socket_path},1,0", "TMUX_PANE": pane_id,
            "LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "teardown"}


async def test_a_2026_answer_counts_only_with_its_own_sealed_state(tmux_server, shell_pane):
    """The requestState is the server's: a forged one, or one replayed for other arguments,
    is no answer (the person is asked again); only the state as sealed lets the kill go."""
    mine = shell_pane("bash")
    shell_pane("dash")
    args = {"pane_id": mine.pane_id}
    accept = {"muxport/ask": types.ElicitResult(action="accept")}
    async with person_client(env_inside(tmux_server, mine.pane_id), Person(["decline"]),
                             "2026-07-28") as client:
        first = await client.session.call_tool("kill_pane", args, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        assert first.input_requests["muxport/ask"].params.mode == "form"
        state = first.request_state
        forged = state[:-1] + ("0" if state[-1] != "0" else "1")
        again = await client.session.call_tool("kill_pane", args, input_responses=accept,
                                               request_state=forged, allow_input_required=True)
        other = await client.session.call_tool(
            "kill_pane", {**args, "confirm_self": False}, input_responses=accept,
            request_state=state, allow_input_required=True)
        assert isinstance(again, types.InputRequiredResult)
        assert isinstance(other, types.InputRequiredResult)
        assert exists(tmux_server, mine.pane_id)
        done = await client.session.call_tool("kill_pane", args, input_responses=accept,
                                              request_state=state, allow_input_required=True)
    assert isinstance(done, types.CallToolResult) and not done.is_error, done
    assert not exists(tmux_server, mine.pane_id)

"""Runs started while muxport is out of file descriptors (issue 30): each answers, the
ones that could not start say ``resource_exhausted`` (retryable, nothing sent) and leave
nothing, and a clean exit leaves no private directory (docs/reliability.md, "Faults
answer with what happened")."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from reliability_kit import STATS, RawLauncher

pytestmark = pytest.mark.timeout(240)

RUNS = 64
ROOM = 12  # descriptors beyond an idle launcher's: a few runs at once, never 64


def test_runs_out_of_file_descriptors_answer_and_leave_nothing(tmux_server, sandbox):
    panes = [tmux_server.shell_pane("bash").pane_id for _ in range(RUNS)]
    temp = Path(tempfile.mkdtemp(prefix="mxfd-"))  # short: run files need a short TMPDIR
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "execute",
           "TMPDIR": str(temp)}
    probe = RawLauncher(env)
    try:  # the descriptors a launcher holds once it has run a command, here
        probe.initialize()
        probe.read(probe.call("run_shell_command", {"pane_id": panes[0], "command": "true"}))
        idle = len(os.listdir(f"/proc/{probe.process.pid}/fd"))
    finally:
        probe.kill()
    raw = RawLauncher(env, max_files=idle + ROOM)
    try:
        raw.initialize()
        ids = {raw.call("run_shell_command", {"pane_id": pane, "command": f"sleep 1; echo ok-{n}",
                                              "timeout": 60}): n
               for n, pane in enumerate(panes)}
        STATS.faults += 1
        answers = raw.lines.answers(list(ids), 180)
        outcomes: dict[str, int] = {}
        for answer in answers:
            result = answer["result"]
            n = ids[answer["id"]]
            if result.get("isError") and "run_id" in result["_meta"]:
                # typed, then out of descriptors while its answer was read: collected
                result = raw.read(raw.call("wait_for_run", {
                    "run_id": result["_meta"]["run_id"], "timeout": 30}), 60)["result"]
            if result.get("isError"):
                meta = result["_meta"]
                key = meta["error_code"]
                assert key == "resource_exhausted", result
                assert (meta["retryable"], meta["delivery"]) == (True, "not_sent"), result
            else:
                got = result["structuredContent"]
                key = got["outcome"]
                assert (key, got.get("output"), got.get("exit_status")) == (
                    "completed", [f"ok-{n}"], 0), got
            outcomes[key] = outcomes.get(key, 0) + 1
        # some started and some could not: the limit was felt, and it was not all
        assert outcomes.get("completed", 0) > 0, outcomes
        assert outcomes.get("resource_exhausted", 0) > 0, outcomes
        assert raw.close(within=10) == 0
        assert sorted(p.name for p in temp.iterdir()) == [], outcomes
    finally:
        raw.kill()
        shutil.rmtree(temp, ignore_errors=True)

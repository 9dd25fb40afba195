"""``run_shell_command 'true'`` through ssh to 127.0.0.1 (the typed frame) beside the same
call in a local bash pane (the local frame): median of 20 each, alternating, after 3
warm-up runs. Needs root (a test user and an sshd of its own, as in the tests); the
peer is not measured here (this is muxport's own cost of reach).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from muxport.testing import reach
from muxport.testing.server import TmuxServer

from bench.harness import Row, connect, data_of, median, ms, ratio, text_of

RUNS = 20
WARMUP = 3


def fifo_dir() -> Path:
    fifos = Path(tempfile.mkdtemp(prefix="muxport-ready-"))
    fifos.chmod(0o755)  # the test user writes its ready FIFO here
    return fifos


async def measure() -> list[Row]:
    name = "run_shell_command 'true' through ssh to 127.0.0.1 (typed frame), median of 20"
    if os.geteuid() != 0 or shutil.which("/usr/sbin/sshd") is None:
        return [Row(name, "skipped: needs root and openssh-server", "-")]
    box = TmuxServer()
    user = reach.make_user("/bin/bash")
    sshd = reach.start_sshd([user.name])
    fifos = fifo_dir()
    try:
        remote = reach.ssh_pane(box, sshd, user, fifos).pane_id
        local = box.shell_pane("bash").pane_id
        laps: dict[str, list[float]] = {remote: [], local: []}
        frames: dict[str, set[str]] = {remote: set(), local: set()}
        async with connect("muxport", box) as session:
            for n in range(WARMUP + RUNS):
                for pane in (remote, local):
                    start = time.perf_counter()
                    result = await session.call(
                        "run_shell_command", {"pane_id": pane, "command": "true", "timeout": 30}
                    )
                    lap = time.perf_counter() - start
                    data = data_of(result)
                    if result.is_error or data.get("exit_status") != 0:
                        raise RuntimeError(f"run over {pane} failed: {text_of(result)[:200]}")
                    frames[pane].add(str(data.get("frame")))
                    if n >= WARMUP:
                        laps[pane].append(lap)
    finally:
        box.kill()
        sshd.stop()
        reach.remove_user(user)
        shutil.rmtree(fifos, ignore_errors=True)
    over, here = median(laps[remote]), median(laps[local])
    return [
        Row(
            name,
            f"{ms(over)} (frame {'/'.join(sorted(frames[remote]))})",
            f"local bash pane: {ms(here)} (frame {'/'.join(sorted(frames[local]))})",
            ratio(over, here),
            "- (ratio: ssh / local)",
            "-",
            {"ssh": laps[remote], "local": laps[local]},
        )
    ]

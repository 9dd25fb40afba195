"""One tmux process, started, read and ended within a deadline, since a stopped or hung
server never answers its clients (docs/reliability.md, "Every tmux call has a deadline"):
``invoke`` kills and reaps the client at the deadline and raises ``TimeoutError``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

import anyio
from anyio.abc import ByteReceiveStream, Process

from muxport._internal.errors import os_fault

DEADLINE = 4.0  # seconds one tmux invocation may take before it is killed
SPARE_PIPES = 4  # a process start needs three pipes and a pidfd: eight descriptors


def spare_descriptors(binary: str) -> None:
    """Refuse to start a process without the descriptors it needs (EMFILE).

    Python 3.11's asyncio waits forever for a child whose pidfd could not be opened
    (EMFILE after the fork), so the shortage is found first. No await runs between this
    check and the start, so no other task can take the descriptors meanwhile."""
    opened: list[int] = []
    try:
        for _ in range(SPARE_PIPES):
            opened.extend(os.pipe())
    except OSError as exc:
        raise os_fault(exc, f"starting {binary}", binary=binary) from None
    finally:
        for fd in opened:
            os.close(fd)


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: bytes
    stderr: bytes


async def _drain(stream: ByteReceiveStream | None, into: bytearray) -> None:
    if stream is None:
        return
    async for chunk in stream:
        into.extend(chunk)


async def reap(process: Process) -> None:
    """Kill ``process`` if it still runs, and wait for it (shielded: never left a zombie)."""
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            try:
                process.kill()
            except ProcessLookupError:
                pass
        await process.aclose()


async def start(argv: Sequence[str], doing: str, stdin: int = subprocess.PIPE,
                stdout: int = subprocess.PIPE) -> Process:
    """Start ``argv`` with its output piped; what the system refused is a tool error."""
    spare_descriptors(argv[0])
    try:
        return await anyio.open_process(
            list(argv), stdin=stdin, stdout=stdout, stderr=subprocess.PIPE
        )
    except OSError as exc:
        raise os_fault(exc, doing, binary=argv[0]) from None


async def invoke(argv: Sequence[str], deadline: float = DEADLINE) -> Finished:
    """Run ``argv`` to completion; ``TimeoutError`` once ``deadline`` seconds passed."""
    process = await start(argv, f"starting {argv[0]}", stdin=subprocess.DEVNULL)
    out, err = bytearray(), bytearray()
    try:
        with anyio.fail_after(deadline):
            async with anyio.create_task_group() as group:
                group.start_soon(_drain, process.stdout, out)
                group.start_soon(_drain, process.stderr, err)
            await process.wait()
    finally:
        await reap(process)
    assert process.returncode is not None
    return Finished(process.returncode, bytes(out), bytes(err))

"""Shared reads and batched commands: fewer tmux runs, never an older snapshot."""

from __future__ import annotations

import anyio
from muxport._internal.sharing import Batch, SharedReads


class Recorder:
    def __init__(self) -> None:
        self.runs: list[tuple[tuple[str, ...], ...]] = []
        self.gate = anyio.Event()

    async def invoke(self, commands: tuple[tuple[str, ...], ...]) -> object:
        self.runs.append(commands)
        await self.gate.wait()
        return len(self.runs)


async def test_identical_reads_share_one_run_started_after_they_asked() -> None:
    rec = Recorder()
    reads = SharedReads(rec.invoke)
    key = (("capture-pane", "-p"),)
    answers: list[object] = []

    async def read() -> None:
        answers.append(await reads.read(key))

    async with anyio.create_task_group() as group:
        group.start_soon(read)  # leads run 1
        await anyio.wait_all_tasks_blocked()
        for _ in range(5):  # asked while run 1 is under way: must not get run 1's snapshot
            group.start_soon(read)
        await anyio.wait_all_tasks_blocked()
        rec.gate.set()
    assert len(rec.runs) == 2
    assert sorted(answers) == [1, 2, 2, 2, 2, 2]


async def test_a_cancelled_leader_does_not_fail_the_joiners() -> None:
    rec = Recorder()
    reads = SharedReads(rec.invoke)
    key = (("display-message", "-p", "x"),)
    answers: list[object] = []
    scopes: list[anyio.CancelScope] = []

    async def lead() -> None:
        with anyio.CancelScope() as scope:
            scopes.append(scope)
            await reads.read(key)

    async def join() -> None:
        answers.append(await reads.read(key))

    async with anyio.create_task_group() as group:
        group.start_soon(lead)
        await anyio.wait_all_tasks_blocked()
        group.start_soon(join)
        await anyio.wait_all_tasks_blocked()
        scopes[0].cancel()
        rec.gate.set()
    # The joiner asked after run 1 started, so it gets run 2; the cancelled leader's
    # run still finished (shielded) and did not fail it.
    assert answers == [2]
    assert len(rec.runs) == 2


async def test_commands_sent_together_go_in_one_invocation() -> None:
    rec = Recorder()
    rec.gate.set()
    batch = Batch(rec.invoke)
    async with anyio.create_task_group() as group:
        for n in range(70):
            group.start_soon(batch.send, ("wait-for", "-S", f"c{n}"))
    assert [len(run) for run in rec.runs] == [64, 6]
    assert {cmd[2] for run in rec.runs for cmd in run} == {f"c{n}" for n in range(70)}

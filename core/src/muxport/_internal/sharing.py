"""Fewer tmux processes under load: identical reads share one invocation, and small
commands sent at the same moment (``wait-for -S`` at 200 timeouts) go in one.

Both keep a promise the callers rely on: a shared read starts AFTER every caller
asked, so nobody gets a snapshot older than its request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import anyio

Commands = tuple[tuple[str, ...], ...]
Invoke = Callable[[Commands], Awaitable[object]]
SHARED_LIMIT = 15.0  # seconds one shared invocation may take before its callers give up
BATCH_WINDOW = 0.005  # seconds a batch stays open for commands sent at the same moment
BATCH_MAX = 64  # commands per invocation (tmux refuses a command line over 16 KiB)


@dataclass
class _Slot:
    done: anyio.Event = field(default_factory=anyio.Event)
    result: object = None
    error: BaseException | None = None


class SharedReads:
    """Concurrent identical read-only invocations share one tmux run.

    The first caller for a key leads: it waits for a run of that key already under
    way (whose snapshot may predate the others' requests), then runs once for
    everyone who joined meanwhile. The leader is shielded so that its cancellation
    never fails the joiners; the shield is bounded by ``SHARED_LIMIT``.
    """

    def __init__(self, invoke: Invoke) -> None:
        self.invoke = invoke
        self.waiting: dict[Commands, _Slot] = {}
        self.running: dict[Commands, anyio.Event] = {}

    async def read(self, commands: Commands) -> object:
        slot = self.waiting.get(commands)
        if slot is not None:
            await slot.done.wait()
        else:
            slot = self.waiting[commands] = _Slot()
            with anyio.CancelScope(shield=True):
                try:
                    with anyio.fail_after(SHARED_LIMIT):
                        busy = self.running.get(commands)
                        if busy is not None:
                            await busy.wait()
                        del self.waiting[commands]
                        self.running[commands] = slot.done
                        slot.result = await self.invoke(commands)
                except Exception as exc:  # handed to every caller below
                    slot.error = exc
                finally:
                    if self.waiting.get(commands) is slot:
                        del self.waiting[commands]
                    if self.running.get(commands) is slot.done:
                        del self.running[commands]
                    slot.done.set()
        if slot.error is not None:
            raise slot.error
        return slot.result


class Batch:
    """Commands whose output nobody reads, sent within ``BATCH_WINDOW`` of each other,
    run in ONE invocation (at most ``BATCH_MAX`` at a time)."""

    def __init__(self, invoke: Invoke) -> None:
        self.invoke = invoke
        self.pending: list[tuple[str, ...]] = []
        self.slot: _Slot | None = None

    async def send(self, command: Sequence[str]) -> None:
        self.pending.append(tuple(command))
        if self.slot is not None:
            slot = self.slot
            await slot.done.wait()
        else:
            slot = self.slot = _Slot()
            with anyio.CancelScope(shield=True):
                try:
                    await anyio.sleep(BATCH_WINDOW)
                    # Close this batch: later commands start the next one.
                    batch, self.pending, self.slot = self.pending, [], None
                    for start in range(0, len(batch), BATCH_MAX):
                        with anyio.fail_after(SHARED_LIMIT):
                            await self.invoke(tuple(batch[start : start + BATCH_MAX]))
                except Exception as exc:
                    slot.error = exc
                finally:
                    if self.slot is slot:
                        self.slot = None
                    slot.done.set()
        if slot.error is not None:
            raise slot.error

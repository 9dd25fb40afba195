"""Does the served tmux server still answer? The deadline state every call shares.

docs/reliability.md, "Every tmux call has a deadline": once one invocation outlived its
deadline, later ones get ``STALLED_DEADLINE`` until one answers again, and waits share
one liveness probe per ``PROBE_EVERY`` seconds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from muxport._internal.errors import SocketMissing, TmuxUnresponsive
from muxport._internal.invoke import DEADLINE

PROBE_EVERY = 1.0  # seconds between liveness probes of a server nobody else has asked
PROBE_DEADLINE = 2.0  # seconds a liveness probe (display-message) may take
STALLED_DEADLINE = 1.0
EXITING = 1.0  # seconds an exiting server may run on, its socket gone (its clients leave)
RELEARN_EVERY = 1.0  # seconds between looks for a new server once the recorded one exited


class Liveness:
    """When the server last answered, and whether the last invocation to end stalled."""

    def __init__(self, socket_path: str, local: bool = True) -> None:
        self.socket_path = socket_path
        self.local = local  # False: the server is on another host, its files and pid too
        self.answered_at = 0.0  # when tmux last finished an invocation (monotonic)
        self.stalled = False  # the last invocation to end outlived its deadline
        self._probing = anyio.Lock()  # one liveness probe at a time, shared by all waits
        self._in_flight: set[anyio.CancelScope] = set()  # one per running invocation
        self._stall_seen = anyio.Event()  # set when ``stalled`` becomes true (wakes waits)
        self.server_pid: int | None = None  # the served server's process, once read
        self._relearned_at = -RELEARN_EVERY  # when a dead server_pid was last looked up
        self.restarted = False  # another server process listens at the path since: its facts
        self.stalled_probe_at = 0.0  # when a probe last asked a server known stalled

    async def check_moved(self) -> bool:
        """Raise ``socket_missing`` when the socket file is gone but the server's process
        still runs (an exiting server may run on ``EXITING`` seconds: it must run longer);
        True when it was gone and is back meanwhile (a "no server" answer then is worth
        asking again: nothing reached the server)."""
        if not self.local or self._present():
            return False
        pid = self._current(force=True)
        if pid is None:
            return False
        deadline = anyio.current_time() + EXITING
        while anyio.current_time() < deadline:
            if not self._running(pid):
                return False  # it exited: gone, as tmux says
            if self._back():
                return True
            await anyio.sleep(0.01)
        if self._back():
            return True
        if not self._present() and self._listening(pid):
            raise SocketMissing(
                f"the tmux server (pid {pid}) still runs, but its socket {self.socket_path} "
                "is gone (moved or deleted), so nothing can reach it; `kill -USR1 "
                f"{pid}` makes tmux create it again (or move it back), then call again; "
                "what runs in its panes goes on (wait_for_run collects a run)",
                delivery="not_sent",
            )
        return False

    def limit(self, deadline: float) -> float:
        """The deadline an invocation gets now."""
        return min(deadline, STALLED_DEADLINE) if self.stalled else deadline

    def track(self) -> anyio.CancelScope:
        """The scope one invocation runs in, so that a stall can cut it short."""
        scope = anyio.CancelScope()
        self._in_flight.add(scope)
        return scope

    def untrack(self, scope: anyio.CancelScope) -> None:
        self._in_flight.discard(scope)

    def answered(self) -> None:
        self.answered_at, self.stalled = time.monotonic(), False
        if self._stall_seen.is_set():
            self._stall_seen = anyio.Event()

    def stall(self) -> TmuxUnresponsive:
        """Record that an invocation outlived its deadline; the error to raise for it.

        Every invocation still running gets at most ``STALLED_DEADLINE`` more, like those
        started from now on: a wait whose read began just before the stall was noticed
        answers within a fixed bound of it (docs/reliability.md), not a whole ``DEADLINE``
        later."""
        self.stalled = True
        self._stall_seen.set()
        cut = anyio.current_time() + STALLED_DEADLINE
        for scope in self._in_flight:
            scope.deadline = min(scope.deadline, cut)
        return self.unresponsive()

    def serving(self) -> bool:
        """The served server's process (once read) still runs: no tmux client may then
        start another server at its path, even if its socket is away just now."""
        return self.local and self._current() is not None

    def _current(self, force: bool = False) -> int | None:
        """The served server's process: the one recorded while it runs; once it exited
        (the server was restarted at this path), the tmux process that listens on the
        socket bound at the path now, looked up again at most every ``RELEARN_EVERY``
        seconds while none is found (``force``: now). A pid learned before a restart names
        a dead server, and a socket moved away from the new one would be taken for no
        server at all; a new process sets ``restarted``: its facts are read again."""
        pid = self.server_pid
        if pid is not None and self._running(pid):
            return pid
        now = time.monotonic()
        if not force and now - self._relearned_at < RELEARN_EVERY:
            return None  # none was listening a moment ago
        found = listener(self.socket_path)
        if found is None:
            self._relearned_at = now
        elif found != pid:
            self.server_pid, self.restarted = found, True
        return found

    def _back(self) -> bool:
        return os.path.exists(self.socket_path)  # one stat

    def _present(self) -> bool:
        """The socket file is there, or its whole directory is gone (a server torn down
        with its directory, as a test kit or a cleanup does, not a socket moved away)."""
        path = self.socket_path  # a stat or two: never long
        return os.path.exists(path) or not os.path.isdir(os.path.dirname(path) or ".")

    def _listening(self, pid: int) -> bool:
        """The server still listens on the socket it bound at this path (``/proc/net/unix``
        keeps the path it was bound to): an exiting server has closed it, a moved one not."""
        return not _bound(self.socket_path).isdisjoint(_sockets(pid))

    @staticmethod
    def _running(pid: int) -> bool:
        """The process runs and is tmux (not a zombie: killed, not yet reaped)."""
        try:  # "pid (comm) state ..."
            comm, _, rest = Path(f"/proc/{pid}/stat").read_text().partition(") ")
        except OSError:
            return False
        return "(tmux" in comm and rest[:1] not in ("Z", "X", "")

    async def stall_seen(self) -> None:
        await self._stall_seen.wait()

    def unresponsive(self) -> TmuxUnresponsive:
        return TmuxUnresponsive(
            f"the tmux server at {self.socket_path} did not answer within {DEADLINE:g} s "
            "(it is stopped, hung or overloaded); what was asked may still happen once it "
            "resumes: check with list_sessions or get_server_info in a moment, then try again",
            delivery="possibly_sent",
        )

    async def responsive(self, probe: Callable[[float], Awaitable[object]]) -> None:
        """Raise ``tmux_unresponsive`` when the server stopped answering (for waits).

        At most one ``probe`` (given its deadline) per ``PROBE_EVERY`` seconds for the whole
        server; any answered invocation counts as one. Known stalled: at once, unless no
        probe has asked since ``PROBE_EVERY``: then one probe with the stalled deadline,
        so that the first wait after the server resumed finds it answering again."""
        if self._settled():
            return
        async with self._probing:
            if self._settled():  # the probe this one waited for answered
                return
            if self.stalled:
                self.stalled_probe_at = time.monotonic()
            await probe(STALLED_DEADLINE if self.stalled else PROBE_DEADLINE)

    def _settled(self) -> bool:
        """True: answered recently; raises: known stalled and probed recently; False: ask."""
        now = time.monotonic()
        if self.stalled:
            if now - self.stalled_probe_at < PROBE_EVERY:
                raise self.unresponsive()
            return False
        return now - self.answered_at < PROBE_EVERY


def _bound(path: str) -> set[str]:
    """The listening sockets bound at ``path``, as ``socket:[inode]`` (``/proc/net/unix``
    keeps the path a socket was bound to, wherever its file is now)."""
    try:
        table = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return set()
    found = set()
    for row in table:  # Num RefCount Protocol Flags Type St Inode Path
        fields = row.split()
        if len(fields) == 8 and fields[7] == path and int(fields[3], 16) & 0x10000:
            found.add(f"socket:[{fields[6]}]")
    return found


def _sockets(pid: int) -> set[str]:
    try:
        return {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    except OSError:
        return set()


def listener(path: str) -> int | None:
    """The tmux process listening on the socket bound at ``path`` (None: none, or no
    ``/proc``): only tmux processes are looked into, a few stats and readlinks."""
    bound = _bound(path)
    if not bound:
        return None
    try:
        pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return None
    for pid in pids:
        if Liveness._running(pid) and not bound.isdisjoint(_sockets(pid)):
            return pid
    return None

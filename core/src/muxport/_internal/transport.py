"""The tmux transport: the only module that runs tmux (docs/architecture.md).

Every call is one tmux invocation, optionally carrying several commands
separated by ``;`` so that they describe one moment. Values are argv items,
never passed through a shell.
"""

from __future__ import annotations

import logging
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import anyio
from anyio.abc import Process

from muxport._internal import hookguard
from muxport._internal.errors import (
    InvalidArgument,
    NotFound,
    ServerGone,
    StartupError,
    TmuxFailed,
    TmuxUnresponsive,
    ToolError,
)
from muxport._internal.faults import os_fault
from muxport._internal.invoke import DEADLINE, Finished, invoke, reap, spare_descriptors
from muxport._internal.sharing import BATCH_WINDOW, Batch, SharedReads
from muxport._internal.wiretransport import WireTransport

log = logging.getLogger(__name__)

# The one table of tmux object kinds: id prefix, and the listing tool that shows which exist.
KINDS = {
    "pane": ("%", "list_panes"), "window": ("@", "list_windows"), "session": ("$", "list_sessions")
}
# tmux's "can't find" kinds -> (the listing tool that shows what exists, its count query)
MISSING = {
    kind: (tool, (f"list-{kind}s", *(() if kind == "session" else ("-a",)), "-F", "x"))
    for kind, (_, tool) in KINDS.items()
}
GONE_MARKERS = (
    "no server running",
    "error connecting to",
    "server exited unexpectedly",
    "lost server",
    "server not found",
)
PROBE_EVERY = 1.0  # seconds between liveness probes of a server nobody else has asked
PROBE_DEADLINE = 2.0  # seconds a liveness probe (display-message) may take
# Once an invocation outlived its deadline, later ones get this much until one answers
# again: cleanup after a stall (waking a waiter, stopping a client) then ends quickly.
STALLED_DEADLINE = 1.0


def refuse_control_chars(value: str, what: str) -> str:
    """Socket and binary paths with ASCII control characters or DEL are refused."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise StartupError(f"{what} {value!r} contains a control character; pass a plain path")
    return value


def refuse_nul(argv: list[str]) -> list[str]:
    """An argv item cannot carry NUL (the OS would cut it short): refuse, send nothing."""
    if any("\x00" in item for item in argv):
        raise InvalidArgument(
            "a value contains a NUL character (\\0), which cannot reach tmux; "
            "remove it and call again", delivery="not_sent",
        )
    return argv


def literal(value: str) -> str:
    """Double every ``#`` so that tmux format expansion yields ``value`` exactly."""
    return value.replace("#", "##")


def escape_arg(value: str) -> str:
    """Keep an argv item from being read as a command separator.

    tmux treats an argument ending in ``;`` as the end of a command; a backslash
    before that ``;`` keeps it (and is removed by tmux).
    """
    if value.endswith(";"):
        return value[:-1] + "\\;"
    return value


@dataclass(frozen=True)
class TmuxResult:
    """What one tmux invocation printed."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        text = self.stdout[:-1] if self.stdout.endswith("\n") else self.stdout
        return text.split("\n") if text else []


def classify(stderr: str) -> Literal["gone", "missing", "failed"]:
    """What a failed invocation's stderr means (docs/tmux-facts.md): the server is gone, a
    target is missing ("no current target": the server has no session left), or else."""
    if any(marker in stderr for marker in GONE_MARKERS):
        return "gone"
    if any(marker in stderr for marker in ("can't find", "no such", "no current target")):
        return "missing"
    return "failed"


class Tmux:
    """Runs tmux against one server, addressed by its socket path."""

    def __init__(self, binary: str, socket_path: str) -> None:
        self.binary = refuse_control_chars(binary, "tmux binary")
        self.socket_path = refuse_control_chars(socket_path, "socket path")
        self._clients: set[Process] = set()
        self._reads = SharedReads(lambda commands: self._invoke(commands))
        # a hook check must never start a server on a dead socket (its marker command,
        # list-commands, would): tmux -N (docs/tmux-facts.md)
        self._hook_checks = SharedReads(lambda commands: self._invoke(commands, start=False))
        # Starting a process blocks the event loop for a moment (fork/exec): start long-lived
        # clients one at a time, so that a quick call is served between two of 200 starts.
        self._starting = anyio.Lock()
        self.answered_at = 0.0  # when tmux last finished an invocation (monotonic)
        self.stalled = False  # the last invocation to end outlived its deadline
        self._probing = anyio.Lock()  # one liveness probe at a time, shared by all waits
        self._in_flight: set[anyio.CancelScope] = set()  # one per running invocation
        self._stall_seen = anyio.Event()  # set when ``stalled`` becomes true (wakes waits)
        # tmux's client protocol over the socket: no process per command (docs/transport.md)
        self.wire = WireTransport(self.socket_path)
        # Over the socket an invocation is cheap: batch only what is sent in the same tick.
        window = 0.0 if self.wire.enabled else BATCH_WINDOW
        self._batch = Batch(lambda commands: self._invoke(commands), window)

    def argv(self, *commands: Sequence[str]) -> list[str]:
        """The argv of one invocation running ``commands`` in order."""
        argv = [self.binary, "-S", self.socket_path]
        for index, command in enumerate(commands):
            if index:
                argv.append(";")
            argv.append(command[0])
            argv.extend(escape_arg(str(arg)) for arg in command[1:])
        return argv

    async def run(
        self, *commands: Sequence[str], check: bool = True, deadline: float = DEADLINE
    ) -> TmuxResult:
        """Run ``commands`` in ONE tmux invocation; on ``check``, a failure raises a tool error.

        Every invocation ends within ``DEADLINE`` seconds: past it the client is killed and
        the call answers ``tmux_unresponsive`` (the server is stopped or hung)."""
        key = tuple(tuple(str(a) for a in c) for c in commands)
        await self._guard(hookguard.Wanted.of_commands(key))
        result = await self._invoke(key, deadline)
        if check and result.returncode != 0:
            raise await self._failed(result)
        return result

    async def _invoke(
        self, commands: Sequence[Sequence[str]], deadline: float = DEADLINE, start: bool = True
    ) -> TmuxResult:
        # every invocation (run, read, batched sends, hook checks) reaches tmux here
        done = await self._exec(refuse_nul(self.argv(*commands)), deadline, start)
        return TmuxResult(
            done.returncode,
            done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"),
        )

    async def _guard(self, wanted: hookguard.Wanted) -> None:
        """Inside a read-only tool: refuse before any hook its command would fire is run."""
        if hookguard.GUARDED.get() is None or not wanted.hooks:
            return

        async def shared(commands: tuple[tuple[str, ...], ...]) -> tuple[int, str]:
            try:
                result = await self._hook_checks.read(commands)
            except TimeoutError:  # the shared invocation outlived SHARED_LIMIT
                raise self.unresponsive() from None
            assert isinstance(result, TmuxResult)
            return result.returncode, result.stdout

        await hookguard.check(shared, wanted)

    async def _exec(
        self, argv: list[str], deadline: float = DEADLINE, start: bool = True
    ) -> Finished:
        """Run one tmux client within ``deadline``; ``start=False``: never start a server
        (the socket client never does; a forked one gets ``-N``)."""
        limit = min(deadline, STALLED_DEADLINE if self.stalled else deadline)
        scope = anyio.CancelScope()
        self._in_flight.add(scope)
        done = None
        try:
            with scope:
                if argv[1:3] == ["-S", self.socket_path]:  # over the socket where it can go
                    done = await self.wire.run(argv[3:], limit)
                if done is None:  # the forked client: the fallback
                    done = await invoke(argv if start else [argv[0], "-N", *argv[1:]], limit)
            if done is None:  # cut short by _stall
                raise TimeoutError
        except TimeoutError:
            self._stall()
            raise self.unresponsive() from None
        finally:
            self._in_flight.discard(scope)
        self.answered_at, self.stalled = time.monotonic(), False
        if self._stall_seen.is_set():
            self._stall_seen = anyio.Event()
        return done

    def _stall(self) -> None:
        """An invocation outlived its deadline: every one still running gets at most
        ``STALLED_DEADLINE`` more, like those started from now on. So a wait whose read
        began just before the stall was noticed answers within a fixed bound of it
        (docs/reliability.md), instead of a whole ``DEADLINE`` later."""
        self.stalled = True
        self._stall_seen.set()
        cut = anyio.current_time() + STALLED_DEADLINE
        for scope in self._in_flight:
            scope.deadline = min(scope.deadline, cut)

    def unresponsive(self) -> TmuxUnresponsive:
        return TmuxUnresponsive(
            f"the tmux server at {self.socket_path} did not answer within {DEADLINE:g} s "
            "(it is stopped, hung or overloaded); what was asked may still happen once it "
            "resumes: check with list_sessions or get_server_info in a moment, then try again",
            delivery="possibly_sent",
        )

    async def stall_seen(self) -> None:
        """Return once an invocation has outlived its deadline (at once while stalled)."""
        await self._stall_seen.wait()

    async def responsive(self) -> None:
        """Raise ``tmux_unresponsive`` when the server stopped answering (for waits).

        Known stalled (the last invocation outlived its deadline): at once. Otherwise at
        most one probe per ``PROBE_EVERY`` seconds for the whole server, shared by every
        wait; any answered invocation counts as one."""
        if self.stalled:
            raise self.unresponsive()
        if time.monotonic() - self.answered_at < PROBE_EVERY:
            return
        async with self._probing:
            if self.stalled:  # the probe this one waited for found the server stalled
                raise self.unresponsive()
            if time.monotonic() - self.answered_at >= PROBE_EVERY:
                await self._invoke((("display-message", "-p", "#{pid}"),), PROBE_DEADLINE)

    async def _failed(self, result: TmuxResult) -> ServerGone | TmuxFailed | NotFound:
        failure = self.failure(result)
        kind, target = failure.data.get("kind"), failure.data.get("target")
        if isinstance(failure, NotFound) and kind in MISSING and target != "none":
            return await self.missing(str(kind), str(target))
        return failure

    async def read(self, *commands: Sequence[str], check: bool = True) -> TmuxResult:
        """Like ``run``, for read-only commands on a hot path (waits): identical reads asked
        for at the same time share ONE invocation that starts after each of them asked."""
        key = tuple(tuple(str(arg) for arg in command) for command in commands)
        await self._guard(hookguard.Wanted.of_commands(key))
        try:
            result = await self._reads.read(key)
        except TimeoutError:  # the shared invocation outlived SHARED_LIMIT
            raise self.unresponsive() from None
        assert isinstance(result, TmuxResult)
        if check and result.returncode != 0:
            raise await self._failed(result)
        return result

    async def send_batched(self, *command: str) -> bool:
        """Run one command whose output nobody reads, batched with others sent at the same
        moment into ONE invocation (``wait-for -S`` when many waits time out together).

        Best effort, for cleanup paths: a failure (a stopped or vanished server) is logged,
        never raised (False is returned), so that the cleanup after it still runs."""
        try:
            await self._batch.send(command)
        except (ToolError, OSError) as exc:
            log.info("batched %s failed: %s", command[0], exc)
            return False
        return True

    def failure(self, result: TmuxResult) -> ServerGone | TmuxFailed | NotFound:
        """The tool error for a failed invocation."""
        err = result.stderr.strip() or f"tmux exited with status {result.returncode}"
        for kind, (tool, _) in MISSING.items():
            # "can't find pane: %9" from -t; "no such window: @9" from set-option -w -t
            for marker in (f"can't find {kind}", f"no such {kind}"):
                if marker in err:
                    target = (err.split(marker, 1)[1].strip(" :\n").splitlines() or ["?"])[0]
                    return NotFound(
                        f"no {kind} {target} on this server; "
                        f"call {tool} to see the {kind}s that exist",
                        data={"kind": kind, "target": target},
                    )
        if "no current target" in err:  # any -t target, once the server has no session left
            return NotFound(
                "that target does not exist: the tmux server has no sessions now; "
                "call list_sessions, or create_session to make one",
                data={"kind": "session", "target": "none"},
            )
        if classify(err) == "gone":
            return ServerGone(
                f"the tmux server at {self.socket_path} is not running; create a session "
                "with create_session (or start tmux) and try again",
                delivery="not_sent",
            )
        return TmuxFailed(f"tmux said: {err.splitlines()[0]}", delivery="possibly_sent")

    async def missing(self, kind: str, target: str) -> NotFound:
        """The not-found error for ``target`` (a pane, window or session), with how many of
        its kind exist; for tools that detect a missing target themselves (tmux 3.3a's
        ``display-message -t`` prints empty fields for one instead of failing)."""
        tool, query = MISSING[kind]
        listed = await self.run(query, check=False)
        count = len(listed.lines) if listed.returncode == 0 else 0
        return NotFound.counted(kind, target, tool, count)

    async def start_client(self, *args: str) -> Process:
        """Start a long-lived tmux client (``wait-for``, control mode); reaped at shutdown."""
        await self._guard(hookguard.Wanted.of_client(args))
        try:
            client = await self.wire.start(refuse_nul(list(args)))  # control mode always forks
        except TimeoutError:
            self.stalled = True
            raise self.unresponsive() from None
        if client is not None:
            self._clients.add(client)
            return client
        async with self._starting:
            spare_descriptors(self.binary)
            try:
                process = await anyio.open_process(
                    refuse_nul([self.binary, "-S", self.socket_path, *args]),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            except OSError as exc:
                raise os_fault(exc, "starting a tmux client", binary=self.binary) from None
            self._clients.add(process)
        return process

    async def stop_client(self, process: Process) -> None:
        """End a client started by ``start_client``; safe to call twice and under cancellation."""
        self._clients.discard(process)
        await reap(process)  # shielded

    async def aclose(self) -> None:
        """Reap every client still running (EOF shutdown)."""
        for process in list(self._clients):
            await self.stop_client(process)
        self.wire.close()

    async def version(self) -> str:
        """What ``tmux -V`` prints (the binary's version; no server is contacted)."""
        out = await self._exec([self.binary, "-V"])
        return (out.stdout or out.stderr).decode("utf-8", "replace").strip()

    async def start_server(self, config: str, *commands: Sequence[str]) -> None:
        """Start this socket's server with ``config`` (a no-op on a running server), then run
        ``commands`` in the same invocation; what it did shows in what is read next."""
        argv = refuse_nul(self.argv(("start-server",), *commands))
        argv[3:3] = ["-f", config]
        await self._exec(argv)

    async def start_waiter(
        self, channel: str, *before: Sequence[str], after: Sequence[Sequence[str]] = ()
    ) -> Process:
        """A ``wait-for`` client on ``channel``; ``before`` and ``after`` run in the same
        invocation around it. End it with ``wake_waiter`` (or ``stop_client``)."""
        argv = self.argv(*before, ("wait-for", "--", channel), *after)
        return await self.start_client(*argv[3:])

    async def wake_waiter(self, channel: str, process: Process, grace: float = 2.0) -> None:
        """End a ``wait-for`` client by signalling its channel (batched), then reap it; never
        only killed: a killed waiter stays registered (docs/tmux-facts.md). Shielded."""
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                with anyio.move_on_after(grace):
                    if await self.send_batched("wait-for", "-S", "--", channel):
                        await process.wait()
            await self.stop_client(process)

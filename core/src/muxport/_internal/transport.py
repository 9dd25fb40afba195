"""The tmux transport: the only module that runs tmux (docs/architecture.md).

Every call is one tmux invocation, optionally carrying several commands
separated by ``;`` so that they describe one moment. Values are argv items,
never passed through a shell. What tmux's answers mean is in ``facts.py``; whether
the server still answers, in ``liveness.py``; how an invocation reaches it (over the
socket, or a forked client), in ``wiretransport.py`` and ``invoke.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import anyio
from anyio.abc import Process

from muxport._internal import facts, hookguard, invoke
from muxport._internal.errors import NotFound, ServerGone, TmuxFailed, ToolError
from muxport._internal.facts import TmuxResult, refuse_nul
from muxport._internal.invoke import DEADLINE, Finished
from muxport._internal.liveness import Liveness
from muxport._internal.sharing import BATCH_WINDOW, Batch, Commands, SharedReads
from muxport._internal.wiretransport import WireTransport

log = logging.getLogger(__name__)


def _key(commands: Sequence[Sequence[str]]) -> Commands:
    return tuple(tuple(str(arg) for arg in command) for command in commands)


class Transport:
    """Runs tmux against one server, addressed by its socket path."""

    def __init__(self, binary: str, socket_path: str) -> None:
        self.binary = facts.refuse_control_chars(binary, "tmux binary")
        self.socket_path = facts.refuse_control_chars(socket_path, "socket path")
        self._clients: set[Process] = set()
        self._reads = SharedReads(lambda commands: self._invoke(commands))
        # a hook check must never start a server on a dead socket (its marker command,
        # list-commands, would): tmux -N (docs/tmux-facts.md)
        self._hook_checks = SharedReads(lambda commands: self._invoke(commands, start=False))
        # Starting a process blocks the event loop for a moment (fork/exec): start long-lived
        # clients one at a time, so that a quick call is served between two of 200 starts.
        self._starting = anyio.Lock()
        self.liveness = Liveness(self.socket_path)
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
            argv.extend(facts.for_server(command[0], self.wire.server_version))
            argv.extend(facts.escape_arg(str(arg)) for arg in command[1:])
        return argv

    async def run(
        self, *commands: Sequence[str], check: bool = True, deadline: float = DEADLINE
    ) -> TmuxResult:
        """Run ``commands`` in ONE tmux invocation; on ``check``, a failure raises a tool error.

        Every invocation ends within ``DEADLINE`` seconds: past it the client is killed and
        the call answers ``tmux_unresponsive`` (the server is stopped or hung)."""
        key = _key(commands)
        await self._guard(hookguard.Wanted.of_commands(key))
        return await self._checked(await self._invoke(key, deadline), check)

    async def read(self, *commands: Sequence[str], check: bool = True) -> TmuxResult:
        """Like ``run``, for read-only commands on a hot path (waits): identical reads asked
        for at the same time share ONE invocation that starts after each of them asked."""
        key = _key(commands)
        await self._guard(hookguard.Wanted.of_commands(key))
        return await self._checked(await self._shared(self._reads, key), check)

    async def _invoke(
        self, commands: Sequence[Sequence[str]], deadline: float = DEADLINE, start: bool = True
    ) -> TmuxResult:
        # every invocation (run, read, batched sends, hook checks) reaches tmux here; none
        # while the socket is moved away, where a forked tmux would start a second server
        await self.liveness.check_moved()
        # The socket may move between that check and the connection: while the served
        # server runs, a forked client never starts one (docs/reliability.md, "moved socket")
        serving = start and self.liveness.serving()
        done = await self._exec(refuse_nul(self.argv(*commands)), deadline, start and not serving)
        result = TmuxResult(
            done.returncode,
            done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"),
        )
        if result.returncode and facts.classify(result.stderr) == "gone":
            # moved meanwhile: unreachable, not dead; moved back: nothing reached it, ask again
            if await self.liveness.check_moved():
                return await self._invoke(commands, deadline, start)
            if serving and not self.liveness.serving():  # it exited: a new one may start
                return await self._invoke(commands, deadline, start)
        return result

    async def _shared(self, reads: SharedReads, key: Commands) -> TmuxResult:
        try:
            result = await reads.read(key)
        except TimeoutError:  # the shared invocation outlived SHARED_LIMIT
            raise self.liveness.unresponsive() from None
        assert isinstance(result, TmuxResult)
        return result

    async def _checked(self, result: TmuxResult, check: bool) -> TmuxResult:
        if check and result.returncode != 0:
            failed = self.failure(result)
            kind, target = failed.data.get("kind"), failed.data.get("target")
            if isinstance(failed, NotFound) and kind in facts.MISSING and target != "none":
                raise await self.missing(str(kind), str(target))
            raise failed
        return result

    async def _guard(self, wanted: hookguard.Wanted) -> None:
        """Inside a read-only tool: refuse before any hook its command would fire is run."""

        async def shared(commands: Commands) -> tuple[int, str]:
            result = await self._shared(self._hook_checks, commands)
            return result.returncode, result.stdout

        await hookguard.check(shared, wanted)

    async def _exec(
        self, argv: list[str], deadline: float = DEADLINE, start: bool = True
    ) -> Finished:
        """Run one tmux client within ``deadline``; ``start=False``: never start a server
        (the socket client never does; a forked one gets ``-N``)."""
        limit = self.liveness.limit(deadline)
        scope = self.liveness.track()
        done = None
        try:
            with scope:
                if argv[1:3] == ["-S", self.socket_path]:  # over the socket where it can go
                    done = await self.wire.run(argv[3:], limit)
                if done is None:  # the forked client: the fallback
                    done = await invoke.invoke(
                        argv if start else [argv[0], "-N", *argv[1:]], limit
                    )
            if done is None:  # cut short by a stall another invocation noticed
                raise TimeoutError
        except TimeoutError:
            raise self.liveness.stall() from None
        finally:
            self.liveness.untrack(scope)
        self.liveness.answered()
        return done

    async def stall_seen(self) -> None:
        """Return once an invocation has outlived its deadline (at once while stalled)."""
        await self.liveness.stall_seen()

    async def responsive(self) -> None:
        """Raise ``tmux_unresponsive`` when the server stopped answering (for waits); see
        ``Liveness.responsive``."""
        await self.liveness.responsive(
            lambda limit: self._invoke((("display-message", "-p", "#{pid}"),), limit)
        )

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
        return facts.failure(result, self.socket_path)

    async def missing(self, kind: str, target: str) -> NotFound:
        """The not-found error for ``target`` (a pane, window or session), with how many of
        its kind exist; for tools that detect a missing target themselves (tmux 3.3a's
        ``display-message -t`` prints empty fields for one instead of failing)."""
        tool, query = facts.MISSING[kind]
        listed = await self.run(query, check=False)
        count = len(listed.lines) if listed.returncode == 0 else 0
        return NotFound.counted(kind, target, tool, count)

    async def start_client(self, *args: str) -> Process:
        """Start a long-lived tmux client (``wait-for``, control mode); reaped at shutdown."""
        await self._guard(hookguard.Wanted.of_client(args))
        control = args[:1] == ("-C",)
        try:  # over the socket where it can go (docs/transport.md)
            client: Process | None = await (
                self.wire.start_control(refuse_nul(list(args[1:]))) if control
                else self.wire.start(refuse_nul(list(args)))
            )
        except TimeoutError:
            raise self.liveness.stall() from None
        if client is None and control and not self.wire.may_fork_control():
            raise RuntimeError(f"a forked control client could crash tmux "
                               f"{self.wire.server_version or '(unknown version)'}")
        if client is None:  # -N: attach-session too would start a server (a moved socket)
            async with self._starting:
                argv = refuse_nul([self.binary, "-N", "-S", self.socket_path, *args])
                client = await invoke.start(argv, "starting a tmux client")
        self._clients.add(client)
        return client

    async def stop_client(self, process: Process) -> None:
        """End a client started by ``start_client``; safe to call twice and under cancellation."""
        self._clients.discard(process)
        await invoke.reap(process)  # shielded

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

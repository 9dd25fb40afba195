"""The tmux transport: the only module that runs tmux (docs/architecture.md).

Every call is one tmux invocation, optionally carrying several commands
separated by ``;`` so that they describe one moment. Values are argv items,
never passed through a shell. What tmux's answers mean is in ``facts.py``; whether
the server still answers, in ``liveness.py``; how an invocation reaches it (over the
socket, or a forked client), in ``wiretransport.py`` and ``invoke.py``; on which host it
runs and what reaching it takes, in the ``Host`` it is given (``host.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio
from anyio.abc import Process

from muxport._internal import completion, facts, hookguard, invoke, padding
from muxport._internal.errors import NotFound, ServerGone, TmuxFailed
from muxport._internal.facts import TmuxResult, refuse_nul
from muxport._internal.host import Host
from muxport._internal.invoke import DEADLINE, Finished
from muxport._internal.liveness import Liveness
from muxport._internal.longlived import LongLivedClients
from muxport._internal.sharing import BATCH_WINDOW, Batch, Commands, SharedReads
from muxport._internal.wiretransport import ForwardDown, WireTransport


def _key(commands: Sequence[Sequence[str]]) -> Commands:
    return tuple(tuple(str(arg) for arg in command) for command in commands)


class Transport(LongLivedClients):
    """Runs tmux against one server, addressed by its socket path."""

    def __init__(self, binary: str, socket_path: str, host: Host | None = None) -> None:
        self.binary = facts.refuse_control_chars(binary, "tmux binary")
        self.socket_path = facts.refuse_control_chars(socket_path, "socket path")
        # where the server runs: this machine, or another host (docs/transport.md, "Hosts")
        self.host = host if host is not None else Host()
        self._clients: set[Process] = set()
        self._reads = SharedReads(lambda commands: self._invoke(commands))
        # a hook check must never start a server on a dead socket (its marker command,
        # list-commands, would): tmux -N (docs/tmux-facts.md)
        self._hook_checks = SharedReads(lambda commands: self._invoke(commands, start=False))
        # Starting a process blocks the event loop for a moment (fork/exec): start long-lived
        # clients one at a time, so that a quick call is served between two of 200 starts.
        self._starting = anyio.Lock()
        # a far server's pid and socket file are not this machine's to look at
        self.liveness = Liveness(self.socket_path, local=self.host.local)
        # tmux's client protocol over the socket: no process per command (docs/transport.md),
        # for a far server over the socket its host reaches it by (an ssh forward)
        wired = self.host.wire_socket(self.socket_path)
        self.wire = WireTransport(wired or self.socket_path, forwarded=self.host.forwarded)
        self.wire.enabled = self.wire.enabled and wired is not None
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
        return await self._checked(completion.record(await self._invoke(key, deadline)), check)

    async def read(self, *commands: Sequence[str], check: bool = True) -> TmuxResult:
        """Like ``run``, for read-only commands on a hot path (waits): identical reads asked
        for at the same time share ONE invocation that starts after each of them asked."""
        key = _key(commands)
        await self._guard(hookguard.Wanted.of_commands(key))
        return await self._checked(completion.record(await self._shared(self._reads, key)), check)

    async def _invoke(
        self, commands: Sequence[Sequence[str]], deadline: float = DEADLINE, start: bool = True
    ) -> TmuxResult:
        # every invocation (run, read, batched sends, hook checks) reaches tmux here; none
        # while the socket is moved away, where a forked tmux would start a second server
        await self.liveness.check_moved()
        await self.host.ensure()  # an ssh master lost since the last call: a new one
        # The socket may move between that check and the connection: while the served
        # server runs, a forked client never starts one (docs/reliability.md, "moved socket")
        serving = start and self.liveness.serving()
        if self.liveness.restarted:
            await self._learn_server()
        # a marker last: whether every command completed when an after-hook failed
        hooks = completion.hooked(commands)
        # tmux 3.2a pads joined captures: markers around each, to trim them (padding.py)
        framed = padding.marked(commands) if padding.pads(self.wire.server_version) else None
        sent = framed or commands
        sent = (*sent, completion.MARKER) if hooks else sent
        # a marker would start a server where the commands would not (a forked client)
        may_start = start and not serving and (
            not (hooks or framed) or completion.starts_server(commands))
        done = await self._exec(refuse_nul(self.argv(*sent)), deadline, may_start)
        result = TmuxResult(
            done.returncode,
            done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"),
        )
        result = padding.trimmed(result) if framed else result
        if result.returncode:
            self.host.check(result.returncode, result.stderr)  # ssh's failure, not tmux's
        if result.returncode and facts.classify(result.stderr) == "gone":
            # moved meanwhile: unreachable, not dead; moved back: nothing reached it, ask again
            if await self.liveness.check_moved():
                return await self._invoke(commands, deadline, start)
            if serving and not self.liveness.serving():  # it exited: a new one may start
                return await self._invoke(commands, deadline, start)
        return completion.settle(result, hooks) if hooks else result

    async def _learn_server(self) -> None:
        """A new server process listens at the path: forget the old one's facts and read its
        version (``send-keys -c`` on 3.7+, the control-client fixes: facts.py)."""
        self.liveness.restarted = False
        self.wire.forget_server()
        asked = self.argv(("display-message", "-p", "#{version}"))
        found = await self._exec(asked, start=False)
        if found.returncode == 0:
            self.wire.server_version = found.stdout.decode("utf-8", "replace").strip()

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
                    done = await self._over_wire(argv[3:], limit)
                if done is None and not self.host.alive():
                    raise self.host.lost()  # the master died: maybe under a wire call
                if done is None:  # the forked client: the fallback
                    done = self.host.own_output(await invoke.invoke(
                        self.forked(argv if start else [argv[0], "-N", *argv[1:]]), limit))
            if done is None:  # cut short by a stall another invocation noticed
                raise TimeoutError
        except TimeoutError:
            raise self.liveness.stall() from None
        finally:
            self.liveness.untrack(scope)
        self.liveness.answered()
        return done

    async def _over_wire(self, args: list[str], limit: float) -> Finished | None:
        """``wire.run``; a far server's forward that refused (its master died after the
        check) gets a new master and the invocation once more: nothing had been sent."""
        seen = self.host.connections
        try:
            return await self.wire.run(args, limit)
        except ForwardDown:
            await self.host.restart(seen)
        try:
            return await self.wire.run(args, limit)
        except ForwardDown:
            raise self.host.lost(sent=False) from None

    def forked(self, argv: list[str]) -> list[str]:
        """The argv of a forked tmux client (a far host's tmux through the ssh master)."""
        return self.host.command(argv)

    async def stall_seen(self) -> None:
        """Return once an invocation has outlived its deadline (at once while stalled)."""
        await self.liveness.stall_seen()

    async def responsive(self) -> None:
        """Raise ``tmux_unresponsive`` when the server stopped answering (for waits); see
        ``Liveness.responsive``."""
        await self.liveness.responsive(
            lambda limit: self._invoke((("display-message", "-p", "#{pid}"),), limit)
        )

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

    async def aclose(self) -> None:
        """Reap every client still running (EOF shutdown)."""
        for process in list(self._clients):
            await self.stop_client(process)
        self.wire.close()
        await self.host.close()

    async def version(self) -> str:
        """What ``tmux -V`` prints (the binary's version; no server is contacted)."""
        if self.host.known_version:  # a far host's, read while connecting
            return self.host.known_version
        out = await self._exec([self.binary, "-V"])
        return (out.stdout or out.stderr).decode("utf-8", "replace").strip()

    async def start_server(self, config: str, *commands: Sequence[str]) -> None:
        """Start this socket's server with ``config`` (a no-op on a running server), then run
        ``commands`` in the same invocation; what it did shows in what is read next."""
        argv = refuse_nul(self.argv(("start-server",), *commands))
        argv[3:3] = ["-f", config]
        await self._exec(argv)

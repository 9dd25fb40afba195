"""The mixed-load soak (docs/reliability.md, "Soak"): 4 launchers over real stdio, 12 shell
panes (bash, zsh, dash), and in every launcher at once runs, waits, reads, send_keys and the
creating and killing of sessions and windows, the notifications that crashed tmux 3.3a
(docs/tmux-facts.md, "The control-client crash of tmux < 3.7").

Shared by ``test_reliability_soak.py`` (a short soak) and ``bench/soak.py`` (5 minutes).
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
from muxport.testing import HOSTILE_PATTERNS, ShellPane, TmuxServer, answer_of, eventually
from muxport.testing.clients import MCPError, stdio_client
from reliability_kit import children_named, threads_and_fds
from soak_faults import Faults
from soak_watch import alive, answers, holders, rss

LAUNCHERS = 4
SHELLS = ("bash", "zsh", "dash")
SIGNAL_TRIES = 40
HOSTILE = list(HOSTILE_PATTERNS.values())  # the costliest client patterns
CALL_LIMIT = 60.0  # seconds: a call that hangs is an error, not a hung soak
TOOLSETS = "inspect,manage,execute,teardown"
# New sessions (create_session) start a bare shell, not the user's own rc files.
DEFAULT_COMMAND = "PS1='$ ' HISTFILE=/dev/null exec bash --noprofile --norc -i"


@dataclass
class Report:
    tmux: str
    seconds: float = 0.0
    calls: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)  # tool errors and hung calls
    wrong: list[str] = field(default_factory=list)  # answers without the expected value
    provoked: int = 0  # deliberate errors, answered as such
    crashed: bool = False
    crashed_after: float | None = None  # seconds into the load when tmux was seen dead
    rss: list[tuple[int, int]] = field(default_factory=list)  # per launcher: start, end
    fds: list[tuple[int, int]] = field(default_factory=list)
    clients_left: list[str] = field(default_factory=list)
    connections: tuple[int, int] = (0, 0)  # the server's sockets: baseline, end (shown)
    held_by: list[str] = field(default_factory=list)  # processes still connected at the end


class Soak:
    """One soak on ``server``: ``await Soak(server, binary).run(seconds)`` -> ``Report``."""

    def __init__(
        self, server: TmuxServer, env: dict[str, str] | None = None, faults: bool = False
    ) -> None:
        self.server = server
        self.env = {"LIBTMUX_SOCKET_PATH": server.socket_path, "LIBTMUX_TOOLSETS": TOOLSETS,
                    "LIBTMUX_TMUX_BIN": server.binary, **(env or {})}
        self.report = Report(server.cmd("-V").strip())
        self.clients: list[Any] = []
        self.panes: list[ShellPane] = []
        self.deadline = 0.0
        self.tmux_pid = 0
        self.started = 0.0
        self.with_faults = faults
        self.faults: Faults | None = None

    def died(self) -> bool:
        """Whether the tmux server is gone; the soak ends there (every later call fails)."""
        if not alive(self.tmux_pid):
            if self.report.crashed_after is None:
                self.report.crashed_after = time.monotonic() - self.started
            self.report.crashed, self.deadline = True, 0.0
        return self.report.crashed

    async def call(self, me: int, tool: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """One tool call; its structured answer, or None once recorded as an error."""
        self.report.calls[tool] += 1
        try:
            with anyio.fail_after(CALL_LIMIT):
                result = await self.clients[me].call_tool(tool, args)
        except (MCPError, TimeoutError) as exc:
            if not self.died():
                self.report.errors.append(f"{tool} {args}: {type(exc).__name__} {exc}")
            return None
        if result.is_error:
            meta = dict(result.meta or {})
            if self.faults is not None and self.faults.expected(meta.get("error_code")):
                self.faults.answered += 1
                if "run_id" in meta:  # a run typed before the fault: collect it
                    return await self.call(me, "wait_for_run",
                                           {"run_id": meta["run_id"], "timeout": 30})
                return None
            if not self.died():
                self.report.errors.append(f"{tool} {args}: {result.content}")
            return None
        return answer_of(result)  # what no model reads too, from _meta

    def expect(self, ok: bool, what: str, answer: Any) -> None:
        if not ok and not self.died():
            self.report.wrong.append(f"{what}: {str(answer)[:300]}")

    # ------------------------------------------------------------ the four lanes

    async def work(self, me: int) -> None:
        """Runs and send_keys + wait_for_text in this launcher's own three panes."""
        own, i = self.panes[me * 3 : me * 3 + 3], 0
        while time.monotonic() < self.deadline:
            i += 1
            pane, token = own[i % 3].pane_id, f"w{me}x{i}"
            if i % 2:
                status = i % 4
                out = await self.call(me, "run_shell_command", {
                    "pane_id": pane, "command": f"printf '%s\\n' {token}; (exit {status})",
                    "timeout": 30})
                self.expect(out is None or (out["outcome"] == "completed"
                            and out.get("exit_status") == status and token in out["output"]),
                            f"run {token} in {pane}", out)
            else:
                # printf joins the halves: only the output, not the typed line, matches
                line = f"printf '%s-%s\\n' done {token}"
                sent = await self.call(me, "send_keys", {"pane_id": pane, "keys": [line],
                                                         "literal": True, "enter": True})
                if sent is not None:  # not refused by a fault (soak_faults.py)
                    await self.matched(me, pane, f"done-{token}")

    async def matched(self, me: int, pane: str, text: str) -> None:
        out = await self.call(me, "wait_for_text", {"pane_id": pane, "patterns": [text],
                                                    "timeout": 30})
        self.expect(out is None or out["outcome"] in ("matched", "present_at_entry"),
                    f"wait for {text} in {pane}", out)

    async def reads(self, me: int) -> None:
        """Listings, captures and searches of everyone's panes."""
        fixed, i = {p.pane_id for p in self.panes}, 0
        while time.monotonic() < self.deadline:
            i += 1
            pane = self.panes[(me + i) % len(self.panes)].pane_id
            out = await self.call(me, "list_panes", {})
            self.expect(out is None or fixed <= {p["id"] for p in out["panes"]}, "list_panes", out)
            out = await self.call(me, "capture_pane", {"pane_id": pane})
            # a run's first moments in a fresh pane: its start marker has overwritten the
            # prompt's row and is hidden as plumbing (docs/answers.md, "Plumbing"), nothing else yet
            self.expect(out is None or out["line_count"] + out.get("hidden_rows", 0) >= 1,
                        f"capture {pane}", out)
            out = await self.call(me, "get_pane_info", {"pane_id": pane})
            self.expect(out is None or out["id"] == pane, f"info {pane}", out)
            out = await self.call(me, "list_sessions", {})
            self.expect(out is None or out["count"] >= len(self.panes), "list_sessions", out)
            out = await self.call(me, "search_panes", {"pattern": "$ "})
            self.expect(out is None or out["count"] >= 1, "search_panes", out)
            if me == 0 and i % 4 == 0:  # a hostile pattern now and then, beside the rest
                await self.hostile(me, HOSTILE[(i // 4) % len(HOSTILE)])

    async def hostile(self, me: int, pattern: str) -> None:
        """A costly client pattern answers (a result, or refused as too costly)."""
        self.report.calls["search_panes"] += 1
        with anyio.fail_after(CALL_LIMIT):
            result = await self.clients[me].call_tool(
                "search_panes", {"pattern": pattern, "regex": True})
        code = (result.meta or {}).get("error_code") if result.is_error else None
        if code not in (None, "pattern_too_costly") and not (
                self.faults is not None and self.faults.expected(code)):
            self.report.errors.append(f"hostile pattern: {code} {result.content}")

    async def churn(self, me: int) -> None:
        """Sessions and windows made and killed: session-created, session-window-changed,
        window-pane-changed, session-closed; each with a wait starting a control client."""
        i = 0
        while time.monotonic() < self.deadline:
            i += 1
            made = await self.call(me, "create_session", {"session_name": f"churn{me}x{i}"})
            if made is None:
                continue
            token = f"c{me}x{i}"
            sent = await self.call(me, "send_keys", {
                "pane_id": made["pane_id"], "literal": True, "enter": True,
                "keys": [f"printf '%s-%s\\n' churn {token}"]})
            if sent is not None:
                await self.matched(me, made["pane_id"], f"churn-{token}")
            window = await self.call(me, "create_window", {"session_id": made["id"]})
            if window is not None:
                split = await self.call(me, "split_window", {"pane_id": window["pane_id"]})
                self.expect(split is None or split["window_id"] == window["id"], "split", split)
                await self.call(me, "select_window", {"window_id": made["window_id"]})
                out = await self.call(me, "kill_window", {"window_id": window["id"]})
                self.expect(out is None or out["killed"] is True, "kill_window", out)
            out = await self.call(me, "kill_session", {"session_id": made["id"]})
            self.expect(out is None or out["killed"] is True, "kill_session", out)

    async def flicker(self, me: int) -> None:
        """Short waits that start and stop control clients on everyone's sessions, and
        channel waits signalled by the next launcher."""
        i = 0
        while time.monotonic() < self.deadline:
            i += 1
            pane = self.panes[(me * 5 + i) % len(self.panes)].pane_id
            out = await self.call(me, "wait_for_text", {"pane_id": pane, "timeout": 0.3,
                                                        "patterns": ["never-printed-zq"]})
            self.expect(out is None or out["outcome"] == "timed_out", f"short wait {pane}", out)
            channel = f"soak{me}x{i}"
            got: dict[str, Any] = {}

            async def wait(ch: str = channel, into: dict[str, Any] = got) -> None:
                into["out"] = await self.call(me, "wait_for_channel",
                                              {"channel": ch, "timeout": 30})

            async with anyio.create_task_group() as group:
                group.start_soon(wait)
                # tmux keeps a signal sent before the wait: no ordering is needed
                for _ in range(SIGNAL_TRIES):  # until one is not refused by a fault
                    if await self.call((me + 1) % LAUNCHERS, "signal_channel",
                                       {"channel": channel}) is not None:
                        break
                    await anyio.sleep(0.5)
            out = got.get("out")
            self.expect(out is None or out["outcome"] == "signalled", f"channel {channel}", out)

    # ------------------------------------------------------------ the whole soak

    async def warm_up(self, me: int) -> None:
        """Every path once, so that lazily made pools count in the baseline."""
        pane = self.panes[me * 3].pane_id
        await self.call(me, "run_shell_command", {"pane_id": pane, "command": "true"})
        await self.call(me, "wait_for_text", {"pane_id": pane, "timeout": 0.1})
        await self.call(me, "wait_for_channel", {"channel": "warm", "timeout": 0.1})
        await self.call(me, "list_panes", {})

    def launchers(self) -> list[tuple[int, int, int]]:
        """Threads, open files and resident bytes of each launcher."""
        return [(*threads_and_fds(pid), rss(pid)) for pid in self.pids]

    async def run(self, seconds: float) -> Report:
        server, report = self.server, self.report
        server.cmd("set-option", "-g", "default-command", DEFAULT_COMMAND)
        self.panes = [server.shell_pane(SHELLS[n % 3]) for n in range(LAUNCHERS * 3)]
        self.tmux_pid = int(server.cmd("display-message", "-p", "#{pid}").strip())
        if self.with_faults:
            self.faults = Faults(self.tmux_pid, server.socket_path)
        async with AsyncExitStack() as stack:
            self.pids: list[int] = []
            for _ in range(LAUNCHERS):  # one at a time: each is its own task group
                known = children_named("muxport")
                self.clients.append(await stack.enter_async_context(stdio_client(self.env)))
                (pid,) = children_named("muxport") - known
                self.pids.append(pid)
            for me in range(LAUNCHERS):
                await self.warm_up(me)
            start, base_conns = self.launchers(), server.connections()
            self.started = started = time.monotonic()
            self.deadline = started + seconds
            async with anyio.create_task_group() as group:
                for me in range(LAUNCHERS):
                    for lane in (self.work, self.reads, self.churn, self.flicker):
                        group.start_soon(lane, me)
                if self.faults is not None:
                    group.start_soon(self.faults.lane, seconds)
            report.seconds = time.monotonic() - started
            if not self.died():
                for me in range(LAUNCHERS):  # one error each, deliberately
                    result = await self.clients[me].call_tool("capture_pane",
                                                              {"pane_id": "%999999"})
                    report.provoked += bool(result.is_error and
                                            (result.meta or {}).get("error_code") == "not_found")
                # /proc and tmux send no event for a client gone: a bounded poll
                await eventually(
                    lambda: (self.launchers(), holders(server.socket_path), server.clients()),
                    lambda now: now[1:] == ([], []) and all(
                        n[1] <= s[1] for n, s in zip(now[0], start, strict=True)),
                    within=15, every=0.1, last_on_timeout=True)
            end = self.launchers()
            report.rss = [(s[2], e[2]) for s, e in zip(start, end, strict=True)]
            report.fds = [(s[1], e[1]) for s, e in zip(start, end, strict=True)]
            report.connections = (base_conns, server.connections())
            report.held_by = holders(server.socket_path)
            if not report.crashed:
                report.clients_left = server.clients()
        report.crashed = self.died() or not answers(server)
        return report

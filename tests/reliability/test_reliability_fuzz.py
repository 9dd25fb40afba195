"""Schema fuzz: every listed tool, called over real stdio with arguments generated from its
own inputSchema (valid ones and ones with one deliberate defect), against a real tmux
server with live shell panes.

Every answer must be a result that its outputSchema accepts, or a tool error with
``_meta.error_code``: no protocol error, no internal error, no hang, no crash. The
server still answers afterwards, nothing ran that a command-free tool was given, and
another tmux server on the machine is untouched.

Nothing is excluded: kill tools may kill the test's shells, so a keeper recreates
panes between calls. Waits are kept short (``timeout`` at most 0.2 s in generated
arguments; the server's ceiling is lowered to 1 s for calls that omit it).
"""

# The suite observes files, /proc and tmux, which send no events: bounded polls are the wait.
# ruff: noqa: ASYNC240

from __future__ import annotations

import os
import random
import time
import zlib
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError
from muxport.testing import TmuxServer, capability_row, tool_schema_errors
from reliability_kit import (
    STATS,
    Resolver,
    SchemaStrategies,
    children_named,
    error_code,
    server_state,
    short,
)

TOTAL_CALLS = int(os.environ.get("MUXPORT_FUZZ_CALLS", "5200"))
MIN_PER_TOOL = 60
SEED = int(os.environ.get("MUXPORT_FUZZ_SEED", "7"))
IN_FLIGHT = int(os.environ.get("MUXPORT_FUZZ_IN_FLIGHT", "12"))
CALL_DEADLINE = 20.0  # a call that takes this long hangs (every wait is capped at 1 s)
KEEP_PANES = 4
MAX_SESSIONS = 24
# Reaches whose documented job is to type or run what the client gives.
TYPING_REACH = {"pane-input", "pane-command"}
pytestmark = pytest.mark.timeout(420)


def generate(name: str, schema: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """``count`` argument sets for one tool: half valid, half with one defect."""
    strategies = SchemaStrategies(schema)
    both = st.one_of(strategies.valid(), strategies.invalid())
    found: list[dict[str, Any]] = []

    @seed(SEED ^ zlib.crc32(name.encode()))
    @settings(
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(both)
    def collect(args: dict[str, Any]) -> None:
        found.append(args)

    collect()
    if not found:
        found.append({})
    # A small space (no arguments) runs out of distinct examples: repeat them.
    return [found[i % len(found)] for i in range(count)]


class Keeper:
    """Keeps a few live shell panes and a bounded number of sessions on the test's server."""

    def __init__(self, server: TmuxServer, resolver: Resolver) -> None:
        self.server = server
        self.resolver = resolver
        self.recreated = 0

    def ids(self, *query: str) -> list[str]:
        # With every session killed, tmux answers "no current target": an empty list.
        return self.server.cmd(*query, check=False).split()

    def refresh(self) -> None:
        panes = self.server.cmd("list-panes", "-a", "-F", "#{pane_id} #{pane_dead}", check=False)
        live = [p.split()[0] for p in panes.splitlines() if p.endswith(" 0")]
        for _ in range(KEEP_PANES - len(live)):
            self.server.shell_pane("bash")
            self.recreated += 1
        for extra in self.ids("list-sessions", "-F", "#{session_id}")[MAX_SESSIONS:]:
            self.server.cmd("kill-session", "-t", extra, check=False)
        self.resolver.set_ids("pane", self.ids("list-panes", "-a", "-F", "#{pane_id}"))
        self.resolver.set_ids("window", self.ids("list-windows", "-a", "-F", "#{window_id}"))
        self.resolver.set_ids("session", self.ids("list-sessions", "-F", "#{session_id}"))


async def test_fuzz_every_tool_from_its_schema(
    stdio_client, tmux_server, sandbox, bystander, all_toolsets, shell_pane
):
    for shell in ("bash", "dash", "bash", "dash"):
        shell_pane(shell)
    canaries = sandbox / "canaries"
    canaries.mkdir()
    before_bystander = server_state(bystander)
    # The default socket and muxport's own daemon socket: neither may appear during the fuzz.
    shared = [Path(f"/tmp/tmux-{os.getuid()}") / name for name in ("default", "muxport")]
    shared_before = [p.exists() for p in shared]
    failures: list[str] = []
    env = {"LIBTMUX_MCP_WAIT_MAX_SECONDS": "1"}
    if os.environ.get("MUXPORT_FUZZ_TMUX_BIN"):  # e.g. a wrapper that logs what tmux ran
        env["LIBTMUX_TMUX_BIN"] = os.environ["MUXPORT_FUZZ_TMUX_BIN"]
    known = children_named("muxport")
    async with stdio_client(toolsets=all_toolsets, env=env) as client:
        (pid,) = children_named("muxport") - known
        listed = (await client.list_tools()).tools
        tools = {t.name: t for t in listed}
        reach = {t.name: capability_row(t)["process_reach"] for t in listed}
        resolver = Resolver({name: str(canaries / name) for name in tools})
        per_tool = max(MIN_PER_TOOL, -(-TOTAL_CALLS // len(tools)))
        started = time.monotonic()
        plan = [
            (name, args)
            for name, t in tools.items()
            for args in generate(name, t.input_schema, per_tool)
        ]
        random.Random(SEED).shuffle(plan)
        generated_in = time.monotonic() - started
        keeper = Keeper(tmux_server, resolver)
        await anyio.to_thread.run_sync(keeper.refresh)
        codes: dict[str, int] = {}
        server_pid = int(tmux_server.cmd("display-message", "-p", "#{pid}"))
        in_flight: dict[int, str] = {}
        death: list[str] = []

        async def call(index: int, name: str, raw: dict[str, Any]) -> None:
            args = resolver.fill(raw, name, index)
            in_flight[index] = f"{name} {short(args, 600)}"
            try:
                with anyio.fail_after(CALL_DEADLINE):
                    result = await client.call_tool(name, args)
            except MCPError as exc:  # a bad argument (NUL too) is a tool error: issue 30
                failures.append(f"protocol error from {name} {short(args)}: {exc}")
                return
            except TimeoutError:
                failures.append(f"{name} did not answer in {CALL_DEADLINE}s: {short(args)}")
                return
            except RuntimeError as exc:  # the client's own outputSchema check
                failures.append(f"{name} {short(args)}: {exc}")
                return
            finally:
                if not death and not os.path.exists(f"/proc/{server_pid}"):
                    death.extend(in_flight.values())
                in_flight.pop(index, None)
            STATS.fuzz_calls += 1
            STATS.calls_per_tool[name] = STATS.calls_per_tool.get(name, 0) + 1
            if result.is_error:
                code = error_code(result)
                codes[code or "none"] = codes.get(code or "none", 0) + 1
                if code == "tmux_error" and os.environ.get("MUXPORT_FUZZ_SHOW"):
                    print(f"TMUXERR {name}: {result.content[0].text[:160]} <- {short(args, 200)}")
                if code is None or code == "internal_error":
                    text = result.content[0].text if result.content else ""
                    failures.append(f"{name} {short(args)}: error without a proper code: {text}")
                return
            schema_errors = tool_schema_errors(tools[name].output_schema, result.structured_content)
            if schema_errors:
                failures.append(
                    f"{name} {short(args)}: answer breaks outputSchema: {schema_errors[:3]}"
                )
            resolver.learn(result.structured_content)

        async def worker(queue: list[tuple[int, str, dict[str, Any]]]) -> None:
            while queue:
                index, name, args = queue.pop()
                await call(index, name, args)

        queue = [(i, name, args) for i, (name, args) in enumerate(plan)]
        queue.reverse()
        while queue:
            batch = [queue.pop() for _ in range(min(240, len(queue)))]
            batch.reverse()
            async with anyio.create_task_group() as group:
                for _ in range(IN_FLIGHT):
                    group.start_soon(worker, batch)
            assert not death, "the tmux server died during one of:\n" + "\n".join(death)
            await anyio.to_thread.run_sync(keeper.refresh)
        elapsed = time.monotonic() - started

        alive = await client.call_tool("list_sessions", {})
        assert not alive.is_error and alive.structured_content["count"] >= 1
        assert Path(f"/proc/{pid}").exists(), "the launcher died during the fuzz"
    print(
        f"\nfuzz: {len(plan)} calls over {len(tools)} tools in {elapsed:.1f}s "
        f"(generation {generated_in:.1f}s, seed {SEED}); error codes {codes}; "
        f"shell panes recreated {keeper.recreated}"
    )
    assert not failures, f"{len(failures)} bad answers (seed {SEED}):\n" + "\n".join(failures[:25])
    assert len(plan) >= 5000
    ran = sorted(p.name for p in canaries.iterdir())
    assert [n for n in ran if reach[n] not in TYPING_REACH] == [], (
        "a command-free tool ran a command"
    )
    assert server_state(bystander) == before_bystander, "the fuzz touched another tmux server"
    assert [p.exists() for p in shared] == shared_before, "the fuzz started a shared tmux server"

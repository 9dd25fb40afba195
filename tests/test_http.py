"""``muxport --http`` through the installed launcher on 127.0.0.1, with the SDK's streamable
HTTP client (docs/http.md): both protocol eras, the bearer token, the Host and Origin
guard, many clients at once, and a client that vanishes mid-wait."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from execute_kit import call, run
from muxport.testing.clients import launcher
from muxport.testing.http import http_client, serving_http
from muxport.testing.waiting import eventually

pytestmark = pytest.mark.timeout(180)
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}
JSON = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_each_era_lists_calls_runs_reads_and_reports_progress(tmux_server, shell_pane, mode):
    pane = shell_pane("bash").pane_id
    with serving_http(tmux_server.socket_path) as served:
        async with http_client(served.url, served.token, mode) as client:
            assert client.protocol_version == ("2025-11-25" if mode == "legacy" else mode)
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"run_shell_command", "list_sessions", "kill_pane"} <= tools
            listed = await call(client, "list_sessions", {})
            assert listed["count"] == len(tmux_server.lines("list-sessions"))
            ran = await run(client, pane, "echo over-http; exit 5")
            assert (ran["output"], ran["exit_status"]) == (["over-http"], 5)
            read = await client.read_resource("tmux://capabilities")
            assert json.loads(read.contents[0].text)["selection"]["toolsets"]  # type: ignore[union-attr]
            seen: list[float] = []

            async def progress(done: float, total: float | None, message: str | None) -> None:
                seen.append(done)

            waited = await client.call_tool("wait_for_channel", {
                "channel": "mx-never", "timeout": 2}, progress_callback=progress)
            assert waited.structured_content["outcome"] == "timed_out"  # type: ignore[index]
            assert seen, "no progress notification reached the client over HTTP"


async def status_of(url: str, headers: dict[str, str], query: str = "") -> httpx2.Response:
    async with httpx2.AsyncClient() as web:
        return await web.post(url + query, json=INIT, headers={**JSON, **headers})


async def test_refusals_serve_nothing(tmux_server, shell_pane):
    shell_pane("bash")
    with serving_http(tmux_server.socket_path) as served:
        token = {"Authorization": f"Bearer {served.token}"}
        none = await status_of(served.url, {})
        assert none.status_code == 401
        assert none.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
        wrong = await status_of(served.url, {"Authorization": "Bearer " + "A" * 43})
        assert wrong.status_code == 401 and "www-authenticate" in wrong.headers
        # the right token, in the URL: refused, even beside the header
        for query in (f"?access_token={served.token}", f"?token={served.token}"):
            assert (await status_of(served.url, {}, query)).status_code == 400
            assert (await status_of(served.url, token, query)).status_code == 400
        page = await status_of(served.url, {**token, "Origin": "http://evil.example"})
        assert page.status_code == 403
        port = served.url.split(":")[2].split("/")[0]
        other_port = "http://127.0.0.1:1" if port != "1" else "http://127.0.0.1:2"
        assert (await status_of(served.url, {**token, "Origin": other_port})).status_code == 403
        rebound = await status_of(served.url, {**token, "Host": "evil.example:80"})
        assert rebound.status_code == 421
        assert "mcp-session-id" not in page.headers | rebound.headers | wrong.headers
        opened = await status_of(served.url, token)  # the same request, let through
        assert opened.status_code == 200 and opened.headers["mcp-session-id"]
        own = await status_of(served.url, {**token, "Origin": f"http://localhost:{port}"})
        assert own.status_code == 200  # muxport's own origin serves no page to fear
        assert served.token not in served.stderr()


async def test_twenty_clients_run_commands_in_their_own_panes(tmux_server, shell_pane):
    first = shell_pane("bash")
    panes = [first.pane_id] + [
        tmux_server.cmd("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", first.session_id,
                        "bash --norc --noprofile").strip()
        for _ in range(19)]
    got: dict[int, dict[str, Any]] = {}

    async def one(index: int, url: str, token: str) -> None:
        async with http_client(url, token) as client:
            got[index] = await run(client, panes[index], f"echo client-{index}", timeout=60)

    with serving_http(tmux_server.socket_path) as served:
        async with anyio.create_task_group() as group:
            for index in range(20):
                group.start_soon(one, index, served.url, served.token)
    assert {i: r["output"] for i, r in got.items()} == {i: [f"client-{i}"] for i in range(20)}
    assert all(r["exit_status"] == 0 for r in got.values())


async def test_a_client_gone_mid_wait_leaves_nothing_behind(tmux_server, shell_pane):
    pane = shell_pane("bash").pane_id
    with serving_http(tmux_server.socket_path) as served:
        async with http_client(served.url, served.token) as client:
            await call(client, "list_sessions", {})
            baseline = tmux_server.connections()
        with anyio.move_on_after(1.5):  # the client vanishes while both calls wait
            async with http_client(served.url, served.token) as client, \
                    anyio.create_task_group() as group:
                group.start_soon(call, client, "wait_for_channel",
                                 {"channel": "mx-gone", "timeout": 3})
                group.start_soon(partial(run, client, pane, "sleep 2; echo late", timeout=4))
                await eventually(tmux_server.connections, lambda n: n > baseline,
                                 what="the wait's tmux client")
                await anyio.sleep_forever()
        # past the waits' deadlines: the wait's tmux client is gone, the pane is free again
        await eventually(tmux_server.connections, lambda n: n <= baseline,
                         what="the vanished client's tmux clients to end", within=8)
        async with http_client(served.url, served.token) as client:
            again = await run(client, pane, "echo free-again", timeout=20)
            assert again["output"] == ["free-again"]


async def test_the_audit_log_names_the_token_id_never_the_token(tmux_server, tmp_path):
    log = tmp_path / "audit"
    with serving_http(tmux_server.socket_path, env={"LIBTMUX_AUDIT": str(log)}) as served:
        async with http_client(served.url, served.token) as client:
            await call(client, "list_sessions", {})
        from muxport._internal.http_config import token_id

        entries = [json.loads(line) for line in log.read_text().splitlines()]
        assert [e["token_id"] for e in entries] == [token_id(served.token)]
        assert served.token not in log.read_text()


def start(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("LIBTMUX_", "TMUX"))}
    return subprocess.run([launcher(), *args], env={**full, **env}, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)


def test_refused_starts_name_the_fix(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path), "LIBTMUX_SOCKET_PATH": str(tmp_path / "none")}
    wide = start(["--http", "0.0.0.0:0"], env)
    assert wide.returncode == 2 and "--http-insecure" in wide.stderr and "--tls-cert" in wide.stderr
    shared = tmp_path / "shared"
    shared.write_text("x" * 40)
    shared.chmod(0o644)
    loose = start(["--http", "0", "--http-token-file", str(shared)], env)
    assert loose.returncode == 2 and "chmod 600" in loose.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        busy = start(["--http", f"127.0.0.1:{taken.getsockname()[1]}"], env)
    assert busy.returncode == 2 and "cannot listen" in busy.stderr
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    tls = start(["--http", "0", "--tls-cert", str(bad), "--tls-key", str(bad)], env)
    assert tls.returncode == 2 and "give a PEM certificate" in tls.stderr
    assert not Path(tmp_path / "none").exists()  # each refused before tmux was touched


async def test_a_token_is_made_when_none_is_configured(tmux_server, tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path)}
    with serving_http(tmux_server.socket_path, env=env, own_token=False) as served:
        made = tmp_path / "muxport" / "http-token"
        async with http_client(served.url, served.token) as client:
            await call(client, "list_sessions", {})
        assert (made.stat().st_mode & 0o777, made.parent.stat().st_mode & 0o777) == (0o600, 0o700)
        assert str(made) in served.stderr() and made.read_text().strip() not in served.stderr()


async def test_a_nul_in_an_argument_is_refused_as_over_stdio(tmux_server, shell_pane):
    """stdio refuses it in frames.py before the SDK reads the line; over HTTP the SDK reads
    the body, so the dispatch refuses it (a NUL was dropped on the way to the pane, and a
    different command ran)."""
    pane = shell_pane("bash")
    with serving_http(tmux_server.socket_path) as served:
        async with http_client(served.url, served.token) as client:
            result = await client.call_tool("run_shell_command", {
                "pane_id": pane.pane_id, "command": "echo mx-nul\x00-typed"})
    assert result.is_error and (result.meta or {})["error_code"] == "invalid_argument"
    assert "nothing was run" in result.content[0].text  # type: ignore[union-attr]
    assert not any("mx-nul" in line for line in pane.screen())

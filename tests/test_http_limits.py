"""``muxport --http``'s bounds (docs/http.md, "Limits"): a cancelled wait lets go of its
tmux client at once, sessions per token, idle sessions, request size, TLS, and the exit
at SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import ssl
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from execute_kit import call
from muxport.testing.http import http_client, serving_http
from muxport.testing.waiting import eventually

pytestmark = pytest.mark.timeout(120)
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}
JSON = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_a_cancelled_wait_lets_go_of_its_tmux_client_at_once(tmux_server, shell_pane):
    shell_pane("bash")
    with serving_http(tmux_server.socket_path) as served:
        async with http_client(served.url, served.token) as client:
            await call(client, "list_sessions", {})
            baseline = tmux_server.connections()
            with anyio.CancelScope() as scope:  # the SDK sends notifications/cancelled

                async def cancel_once_waiting() -> None:
                    await eventually(tmux_server.connections, lambda n: n > baseline,
                                     what="the wait's tmux client")
                    scope.cancel()

                async with anyio.create_task_group() as group:
                    group.start_soon(cancel_once_waiting)
                    await call(client, "wait_for_channel", {"channel": "mx-c", "timeout": 60})
            # far before the wait's 60 s: the cancel reached the call over HTTP
            await eventually(tmux_server.connections, lambda n: n <= baseline, within=5,
                             what="the cancelled wait's tmux client to end")
            assert (await call(client, "list_sessions", {}))["count"] >= 1
    assert served.process.returncode == 128 + signal.SIGTERM


async def opens(url: str, token: str, body: object = INIT) -> httpx2.Response:
    async with httpx2.AsyncClient() as web:
        return await web.post(url, json=body, headers={
            **JSON, "Authorization": f"Bearer {token}"})


async def test_sessions_per_token_idle_sessions_and_request_size_are_bounded(tmux_server):
    env = {"MUXPORT_HTTP_MAX_SESSIONS": "2", "MUXPORT_HTTP_IDLE_SECONDS": "5",
           "MUXPORT_MAX_REQUEST_BYTES": str(64 << 10)}
    with serving_http(tmux_server.socket_path, env=env) as served:
        first, second = [await opens(served.url, served.token) for _ in range(2)]
        assert first.status_code == second.status_code == 200
        assert (await opens(served.url, served.token)).status_code == 503
        big = {**INIT, "params": {**INIT["params"], "pad": "x" * (65 << 10)}}  # type: ignore[dict-item]
        assert (await opens(served.url, served.token, big)).status_code == 413

        async def third_opens() -> bool:  # once the first two were idle 5 s
            return (await opens(served.url, served.token)).status_code == 200

        deadline = anyio.current_time() + 20
        while not await third_opens():
            assert anyio.current_time() < deadline, "idle sessions were never closed"
            await anyio.sleep(0.5)
        async with httpx2.AsyncClient() as web:
            gone = await web.post(served.url, json={"jsonrpc": "2.0", "method": "ping", "id": 2},
                                  headers={**JSON, "Authorization": f"Bearer {served.token}",
                                           "Mcp-Session-Id": first.headers["mcp-session-id"],
                                           "Mcp-Protocol-Version": "2025-11-25"})
        assert gone.status_code == 404


async def test_tls(tmux_server, tmp_path: Path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    with anyio.fail_after(60):
        await anyio.run_process([
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
            "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
            "-out", str(cert)])
    with serving_http(tmux_server.socket_path,
                      args=["--tls-cert", str(cert), "--tls-key", str(key)]) as served:
        assert served.url.startswith("https://") and "(TLS)" in served.stderr()
        async with httpx2.AsyncClient(verify=ssl.create_default_context(cafile=cert)) as web:
            answer = await web.post(served.url, json=INIT, headers={
                **JSON, "Authorization": f"Bearer {served.token}"})
        assert answer.status_code == 200


async def test_calls_in_flight_are_bounded(tmux_server):
    """MUXPORT_MAX_CALLS=1 and one session: 1 + 2 connections at once (idle keep-alive
    ones count), the rest 503 at once."""
    env = {"MUXPORT_MAX_CALLS": "1", "MUXPORT_HTTP_MAX_SESSIONS": "1"}
    with serving_http(tmux_server.socket_path, env=env) as served:
        opened = await opens(served.url, served.token)
        headers = {**JSON, "Authorization": f"Bearer {served.token}",
                   "Mcp-Session-Id": opened.headers["mcp-session-id"],
                   "Mcp-Protocol-Version": "2025-11-25"}
        statuses: list[int] = []
        limits = httpx2.Limits(max_connections=None)
        async with httpx2.AsyncClient(limits=limits, timeout=30) as web:
            await web.post(served.url, headers=headers, json={
                "jsonrpc": "2.0", "method": "notifications/initialized"})

            async def wait(index: int) -> None:
                answer = await web.post(served.url, headers=headers, json={
                    "jsonrpc": "2.0", "id": index + 2, "method": "tools/call", "params": {
                        "name": "wait_for_channel",
                        "arguments": {"channel": f"mx-{index}", "timeout": 2}}})
                statuses.append(answer.status_code)

            async with anyio.create_task_group() as group:
                for index in range(6):
                    group.start_soon(wait, index)
        assert 1 <= statuses.count(200) <= 3 and statuses.count(503) == 6 - statuses.count(200)


async def test_plain_http_outside_loopback_only_when_said_and_the_line_says_so(tmux_server):
    with serving_http(tmux_server.socket_path,
                      args=["--http", "0.0.0.0:0", "--http-insecure"]) as served:
        assert "PLAIN HTTP OUTSIDE LOOPBACK" in served.stderr()
        port = served.url.rsplit(":", 1)[1].split("/")[0]
        answer = await opens(f"http://127.0.0.1:{port}/mcp", served.token)
        assert answer.status_code == 200  # a wildcard bind serves its loopback names too


async def test_sigterm_with_a_wait_in_flight_exits_within_a_second(tmux_server, shell_pane):
    shell_pane("bash")
    with serving_http(tmux_server.socket_path) as served:
        async with http_client(served.url, served.token) as client:
            await call(client, "list_sessions", {})
            baseline = tmux_server.connections()
            async with anyio.create_task_group() as group:

                async def wait() -> None:
                    with contextlib.suppress(Exception):  # answered "Connection closed"
                        await client.call_tool("wait_for_channel", {"channel": "mx-t",
                                                                    "timeout": 60})

                group.start_soon(wait)
                await eventually(tmux_server.connections, lambda n: n > baseline,
                                 what="the wait's tmux client")
                start = time.monotonic()
                served.process.send_signal(signal.SIGTERM)
                code = await anyio.to_thread.run_sync(served.process.wait)
                elapsed = time.monotonic() - start
                group.cancel_scope.cancel()
    assert code == 128 + signal.SIGTERM
    assert elapsed < 1.0, f"exit took {elapsed:.2f} s after SIGTERM"
    assert tmux_server.connections() <= baseline

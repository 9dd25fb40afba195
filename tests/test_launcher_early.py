"""The launcher answers ``initialize`` while the server loads (docs/architecture.md,
"Startup order"): before tmux has been asked anything, with the SDK's own answer, exactly
once; a refused startup still tells the client why; any other first line is the SDK's to
answer. Spoken to over real stdio through the installed launcher."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp.server import runner
from muxport.testing import JsonLines
from muxport.testing.clients import launcher
from muxport_launch import early

from tests.conftest import clean_env

pytestmark = pytest.mark.timeout(120)
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"}}}
OPENED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
# A first line the launcher leaves to the SDK (a notification answers nothing).
DEFER = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}


def lines(*frames: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(frame).encode() + b"\n" for frame in frames)


def spoken(env: dict[str, str], data: bytes, *args: str) -> tuple[int, list[dict[str, Any]]]:
    """Write ``data`` and EOF, as ``printf ... | muxport`` does: the exit status and every
    message written back, in order."""
    done = subprocess.run([launcher(), *args], input=data, capture_output=True,
                          env=clean_env(env), timeout=60, check=False)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def test_the_versions_are_the_sdks() -> None:
    assert early.HANDSHAKE_VERSIONS == tuple(runner.HANDSHAKE_PROTOCOL_VERSIONS)
    assert early.LATEST == runner.LATEST_HANDSHAKE_VERSION


@pytest.mark.parametrize("asked", [*early.HANDSHAKE_VERSIONS, "1999-01-01"])
def test_the_early_answer_is_the_sdks_answer(tmux_server: Any, asked: str) -> None:
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    init = {**INIT, "params": {**INIT["params"], "protocolVersion": asked}}
    code, fast = spoken(env, lines(init, OPENED, LIST))
    code_sdk, sdk = spoken(env, lines(DEFER, init, OPENED, LIST))
    assert (code, code_sdk) == (0, 0)
    first = [m for m in fast if m.get("id") == 1]
    assert len(first) == 1, fast  # once: the SDK's own answer to it is not sent as well
    assert first == [m for m in sdk if m.get("id") == 1]
    assert first[0]["result"]["protocolVersion"] == (
        asked if asked in early.HANDSHAKE_VERSIONS else early.LATEST
    )
    assert fast.index(first[0]) == 0
    tools = [m for m in fast if m.get("id") == 2]
    assert len(tools[0]["result"]["tools"]) > 40


def test_initialize_is_answered_before_tmux_is_asked(tmux_server: Any, tmp_path: Path) -> None:
    # The tmux the launcher is given waits until the test lets it go: an answer that came
    # before that was written while the server was still loading.
    go, asked = tmp_path / "go", tmp_path / "asked"
    wrapper = tmp_path / "tmux"
    wrapper.write_text(
        "#!/bin/sh\n"
        f": > '{asked}'\n"
        f"i=0; while [ ! -e '{go}' ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done\n"
        f"exec '{tmux_server.binary}' \"$@\"\n"
    )
    wrapper.chmod(0o755)
    env = clean_env({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path})
    with subprocess.Popen([launcher(), "--tmux", str(wrapper)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(lines(INIT))
            proc.stdin.flush()
            answer = JsonLines(proc.stdout).message(timeout=20)
            assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "muxport"
            assert not go.exists()
            go.touch()
            proc.stdin.write(lines(OPENED, LIST))
            proc.stdin.flush()
            tools = JsonLines(proc.stdout).answer(2, timeout=30)
            assert len(tools["result"]["tools"]) > 40
            assert asked.exists()
        finally:
            proc.kill()


def test_a_refused_startup_after_the_early_answer_says_why(tmux_server: Any) -> None:
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    code, messages = spoken(env, lines(INIT, OPENED, LIST), "--toolsets", "nosuch")
    assert code == 2
    assert messages[0]["id"] == 1 and "result" in messages[0]
    said = messages[1]
    assert said["method"] == "notifications/message"
    assert said["params"]["level"] == "error"
    assert "nosuch" in said["params"]["data"]
    assert len(messages) == 2


@pytest.mark.parametrize("first", [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
    {"jsonrpc": "2.0", "id": True, "method": "initialize", "params": INIT["params"]},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
])
def test_any_other_first_line_is_left_to_the_sdk(first: dict[str, Any]) -> None:
    assert early.answer_to(json.dumps(first).encode()) is None


def test_strings_the_frame_checks_refuse_are_left_to_them() -> None:
    params = {**INIT["params"], "clientInfo": {"name": "a\x00b", "version": "0"}}
    assert early.answer_to(json.dumps({**INIT, "params": params}).encode()) is None
    lone = json.dumps(INIT).replace('"raw"', '"\\ud800"').encode()
    assert early.answer_to(lone) is None
    assert early.answer_to(b"{not json") is None
    found = early.answer_to(json.dumps(INIT).encode())
    assert found is not None and found[0] == 1


def test_eof_right_after_initialize_answers_it_once(tmux_server: Any) -> None:
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    code, messages = spoken(env, lines(INIT))
    assert code == 0
    assert [m.get("id") for m in messages if "id" in m] == [1]

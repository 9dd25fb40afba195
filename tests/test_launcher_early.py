"""The launcher answers ``initialize`` and ``server/discover`` while the server loads
(docs/architecture.md, "Startup order"): before tmux has been asked anything, with the
SDK's own answer, exactly once; a refused startup still tells the client why; any other
first line is the SDK's to answer. A discover does not settle the connection's era: a
client that falls back to ``initialize`` is served in the handshake era. Spoken to over
real stdio through the installed launcher."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import muxport_launch.arguments
import muxport_launch.command
import pytest
from mcp.server import runner
from mcp_types import version as sdk_versions
from muxport.testing import JsonLines
from muxport.testing.clients import launcher
from muxport_launch import early

from tests.conftest import clean_env
from tests.load_kit import busy_cores

pytestmark = pytest.mark.timeout(120)
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"}}}
OPENED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
# A first line the launcher leaves to the SDK (a notification answers nothing).
DEFER = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}
# Claude Code's first request (2.1.332); its 2026 client goes on in the same envelope.
DISCOVER = {"jsonrpc": "2.0", "id": 0, "method": "server/discover",
            "params": {"_meta": ENVELOPE}}
MODERN_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": ENVELOPE}}
# An enveloped ping settles the SDK on the 2026 era: a discover after it is the SDK's.
MODERN_PING = {"jsonrpc": "2.0", "id": "settle", "method": "ping", "params": {"_meta": ENVELOPE}}


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
    assert early.MODERN_VERSIONS == tuple(sdk_versions.MODERN_PROTOCOL_VERSIONS)


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


@pytest.mark.parametrize("envelope", [
    ENVELOPE,
    {k: v for k, v in ENVELOPE.items() if not k.endswith("clientInfo")},
    {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": {"roots": {}}, "extra": 1},
])
def test_the_early_discover_answer_is_the_sdks_answer(
    tmux_server: Any, envelope: dict[str, Any]
) -> None:
    discover = {**DISCOVER, "id": 1, "params": {"_meta": envelope}}
    found = early.answer_to(json.dumps(discover).encode())
    assert found is not None and found[0] == 1 and found[2] == "server/discover"
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    code, sdk = spoken(env, lines(MODERN_PING, discover))
    assert code == 0
    assert [m for m in sdk if m.get("id") == 1] == [json.loads(found[1])]


@pytest.mark.parametrize("first", [INIT, DISCOVER], ids=["initialize", "discover"])
def test_the_first_answer_comes_before_tmux_is_asked(
    tmux_server: Any, tmp_path: Path, first: dict[str, Any]
) -> None:
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
            proc.stdin.write(lines(first))
            proc.stdin.flush()
            answer = JsonLines(proc.stdout).message(timeout=20)
            assert answer["id"] == first["id"] and answer["result"]["instructions"]
            assert not go.exists()
            go.touch()
            proc.stdin.write(lines(OPENED, LIST) if first is INIT else lines(MODERN_LIST))
            proc.stdin.flush()
            tools = JsonLines(proc.stdout).answer(2, timeout=30)
            assert len(tools["result"]["tools"]) > 40
            assert asked.exists()
        finally:
            proc.kill()


@pytest.mark.parametrize("refused", [("--toolsets", "nosuch"), ("--nosuch",)])
def test_a_refused_startup_after_the_early_answer_says_why(
    tmux_server: Any, refused: tuple[str, ...]
) -> None:
    # --nosuch: the first line is answered before argparse loads (surely_serving)
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    code, messages = spoken(env, lines(INIT, OPENED, LIST), *refused)
    assert code == 2
    assert messages[0]["id"] == 1 and "result" in messages[0]
    said = messages[1]
    assert said["method"] == "notifications/message"
    assert said["params"]["level"] == "error"
    assert "nosuch" in said["params"]["data"]
    assert len(messages) == 2


@pytest.mark.parametrize(("words", "serving"), [
    ([], True), (["--verbose", "--socket", "/tmp/s", "--tool=doctor"], True),
    (["tools"], False), (["doctor", "--json"], False), (["--socket", "tools"], False),
    (["-h"], False), (["--he"], False), (["--vers"], False), (["--version"], False),
])
def test_the_early_answer_starts_before_argparse_only_when_surely_serving(
    words: list[str], serving: bool
) -> None:
    assert muxport_launch.command.surely_serving(words) is serving
    if serving:
        assert muxport_launch.arguments.parser().parse_args(words).command == "serve"


@pytest.mark.parametrize("first", [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
    {"jsonrpc": "2.0", "id": True, "method": "initialize", "params": INIT["params"]},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    MODERN_LIST,
    {**DISCOVER, "params": {}},  # no envelope: the SDK names what is missing
    {**DISCOVER, "params": {"_meta": {**ENVELOPE,
                                      "io.modelcontextprotocol/protocolVersion": "2099-01-01"}}},
    {**DISCOVER, "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}},
    {**DISCOVER, "params": {"_meta": {**ENVELOPE, "io.modelcontextprotocol/clientInfo": "x"}}},
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


def test_a_client_falling_back_from_discover_to_initialize_is_served(tmux_server: Any) -> None:
    # Claude Code gives up on its discover after ~2.7 s and sends initialize on the same
    # connection: served in the handshake era it settled on (it was refused -32022).
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    code, messages = spoken(env, lines(DISCOVER, INIT, OPENED, LIST))
    assert code == 0
    assert not [m for m in messages if "error" in m], messages
    answers = {m["id"]: m["result"] for m in messages if "id" in m}
    assert sorted(answers) == [0, 1, 2]
    assert answers[0]["supportedVersions"] == ["2026-07-28"]
    assert answers[1]["protocolVersion"] == INIT["params"]["protocolVersion"]
    assert len(answers[2]["tools"]) > 40


def test_discover_is_answered_within_half_a_second_with_both_cores_busy(
    tmux_server: Any,
) -> None:
    # issue 29: 2.4 s with both cores busy, 10.8 s on a cold start under heavy load; the
    # client gives up at ~2.7 s. Measured from the spawn, as the client's clock runs.
    env = clean_env({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path})
    with busy_cores(2):
        start = time.monotonic()
        with subprocess.Popen([launcher()], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=env) as proc:
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(lines(DISCOVER))
                proc.stdin.flush()
                reader = JsonLines(proc.stdout)
                answer = reader.message(timeout=20)
                elapsed = time.monotonic() - start
                assert answer["id"] == 0 and answer["result"]["supportedVersions"]
                assert elapsed < 0.5, f"server/discover answered after {elapsed:.2f} s"
                proc.stdin.write(lines(MODERN_LIST))  # the 2026 client goes on
                proc.stdin.flush()
                assert len(reader.answer(2, timeout=60)["result"]["tools"]) > 40
            finally:
                proc.kill()


def test_the_startup_line_follows_only_an_accepted_initialize(tmux_server: Any) -> None:
    # A client that settled on 2026-07-28 (its enveloped tools/list) and then sent
    # initialize is refused it, as the SDK does; the startup line is no answer to that.
    env = {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    code, messages = spoken(env, lines(DISCOVER, MODERN_LIST, INIT))
    assert code == 0
    refused = [m for m in messages if m.get("id") == 1]
    assert refused[0]["error"]["code"] == -32022
    assert [m for m in messages if m.get("method") == "notifications/message"] == []

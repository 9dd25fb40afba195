"""JSON-RPC 2.0 as written: every frame gets an answer (parse errors -32700 with id null,
invalid requests -32600), non-object arguments and arguments a model can fix (NUL, lone
surrogates, wrong types) are tool errors naming the recovery, a
duplicate in-flight id is refused, and an over-long line is refused without being held."""

from __future__ import annotations

from typing import Any

import pytest
from reliability_kit import STATS, RawLauncher

pytestmark = pytest.mark.timeout(60)


def next_line(raw: RawLauncher, timeout: float = 10) -> dict[str, Any]:
    """The next message the launcher writes (notifications included)."""
    return raw.lines.message(timeout)


@pytest.fixture
def raw(tmux_server, shell_pane, sandbox):
    shell_pane("bash")
    launcher = RawLauncher({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                            "LIBTMUX_TOOLSETS": "inspect,manage"})
    try:
        launcher.initialize()
        yield launcher
    finally:
        launcher.kill()


BAD_FRAMES = [
    (b"this is not json\n", -32700),
    (b'{"jsonrpc": "2.0", "id": \n', -32700),
    (b"42\n", -32600),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]\n', -32600),
    (b"[]\n", -32600),
    (b'{"jsonrpc": "2.0", "id": null, "method": "tools/list"}\n', -32600),
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}\n', -32600),
    (b'{"jsonrpc": "1.0", "id": 7, "method": "tools/list"}\n', -32600),
    (b'{"jsonrpc": "2.0", "id": 8}\n', -32600),
    (b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "tools/list"}\n', -32600),  # no echo
]


def test_bad_frames_are_answered(raw):
    for frame, code in BAD_FRAMES:
        raw.send(frame)
        answer = next_line(raw)
        STATS.protocol_cases += 1
        assert answer["error"]["code"] == code, (frame, answer)
        expected = {b"1.0": 7, b'8}': 8}
        assert answer["id"] == next((v for k, v in expected.items() if k in frame), None)
        ok = raw.read(raw.call("list_sessions", {}))
        assert ok["result"]["structuredContent"]["count"] == 1


def test_non_object_arguments_are_a_tool_error(raw):
    for arguments in (["%1"], "x", 3):
        params = {"name": "list_panes", "arguments": arguments}
        answer = raw.read(raw.request("tools/call", params))
        STATS.protocol_cases += 1
        result = answer["result"]
        assert result["isError"] is True and result["_meta"]["error_code"] == "invalid_argument"
        assert "must be a JSON object" in result["content"][0]["text"]


def test_duplicate_in_flight_id_is_refused(raw):
    wait = {"name": "wait_for_channel", "arguments": {"channel": "proto-dup", "timeout": 3}}
    raw.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": wait})
    raw.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
              "params": {"name": "list_sessions", "arguments": {}}})
    first = next_line(raw)
    STATS.protocol_cases += 1
    assert first["id"] == 99 and first["error"]["code"] == -32600, first
    assert "already used by a request in flight" in first["error"]["message"]
    raw.send({"jsonrpc": "2.0", "id": "99", "method": "tools/call",  # "99" is another id
              "params": {"name": "list_sessions", "arguments": {}}})
    assert not raw.read("99")["result"].get("isError")  # type: ignore[arg-type]
    assert raw.read(99, timeout=10)["result"]["structuredContent"]["outcome"] == "timed_out"
    again = raw.read(raw.call("list_sessions", {}))  # 99 is free again once answered
    assert not again["result"].get("isError")


def test_over_long_line_is_refused_with_its_id(raw):
    # a tool call's arguments over the 4 MiB default: the model can send less, so it is a
    # tool error it reads (issue 30), found from the line's head while the rest is dropped
    huge = raw.call("list_sessions", {"x": "a" * (6 << 20)})
    answer = raw.read(huge, timeout=30)
    STATS.protocol_cases += 1
    assert_tool_refusal(answer, "over the limit", "send less per call")
    assert "list_sessions" in answer["result"]["content"][0]["text"]
    # any other request that long stays an invalid request
    other = raw.read(raw.request("resources/read", {"uri": "tmux://" + "a" * (6 << 20)}),
                     timeout=30)
    assert other["error"]["code"] == -32600 and "over the limit" in other["error"]["message"]
    assert raw.read(raw.call("list_sessions", {}))["result"]["structuredContent"]["count"] == 1


INVALID_STRINGS = [
    ("capture_pane", {"pane_id": "\ud800"}, "argument pane_id holds a lone surrogate (U+D800"),
    ("wait_for_text", {"pane_id": "%0", "patterns": ["ok", "x\udfffy"]},
     "argument patterns[1] holds a lone surrogate (U+DFFF at index 1)"),
    ("call_read_tools_batch",
     {"operations": [{"tool": "capture_pane", "arguments": {"pane_id": "%0\ud83d"}}]},
     "argument operations[0].arguments.pane_id holds a lone surrogate"),
    ("search_panes", {"pattern": "a\x00b"}, "argument pattern holds a NUL character"),
    ("list_panes", {"\ud800": 1}, "a name holds a lone surrogate"),
    ("rename_session", {"session_id": "$0", "new_name": "a\x00b"},
     "argument new_name holds a NUL character"),
]


def assert_tool_refusal(answer: dict[str, Any], said: str, name: str) -> None:
    """A tool error the model reads (issue 30: a JSON-RPC error most clients never show
    their model): invalid_argument, nothing sent, its text naming the field and the fix."""
    result = answer.get("result")
    assert result is not None and "error" not in answer, answer
    assert result["isError"] is True, result
    assert result["_meta"] == {"error_code": "invalid_argument", "retryable": False,
                               "delivery": "not_sent"}, result
    text = result["content"][0]["text"]
    assert said in text and name in text, text


def test_invalid_strings_in_arguments_are_tool_errors_naming_the_argument(
    tmux_server, shell_pane, sandbox
):
    shell_pane("bash")
    errors = sandbox / "stderr.txt"
    raw = RawLauncher({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                       "LIBTMUX_TOOLSETS": "inspect,manage"}, stderr=errors)
    try:
        raw.initialize()
        for name, arguments, said in INVALID_STRINGS:
            answer = raw.read(raw.call(name, arguments))  # json.dumps escapes them as \uXXXX
            STATS.protocol_cases += 1
            assert_tool_refusal(answer, said, f"(tool {name})")
            assert "remove it" in answer["result"]["content"][0]["text"] or (
                "send valid UTF-8" in answer["result"]["content"][0]["text"])
        # outside a tool's arguments, a string no answer could hold stays invalid params
        weird = raw.read(raw.request("resources/read", {"uri": "tmux://\udc80"}))
        assert weird["error"]["code"] == -32602 and "params.uri" in weird["error"]["message"]
        ok = raw.read(raw.call("list_sessions", {}))  # a pair is fine: it is one character
        assert ok["result"]["structuredContent"]["count"] == 1
        emoji = raw.read(raw.call("search_panes", {"pattern": "\ud83d\ude00"}))
        assert not emoji["result"].get("isError"), emoji
    finally:
        raw.kill()
    assert "Traceback" not in errors.read_text()


# What else a model can get wrong in an argument: every one a tool error naming the field.
FIXABLE_ARGUMENTS = [
    ("rename_session", {"session_id": "$0", "new_name": "a\tb"}, "control character"),
    ("rename_session", {"session_id": "$0", "new_name": "x" * 300}, "new_name"),
    ("capture_pane", {"pane_id": 5}, "pane_id"),
    ("capture_pane", {"pane_id": "%0", "max_lines": "many"}, "max_lines"),
    ("capture_pane", {"pane_id": "%0", "max_lines": 10**9}, "max_lines"),
    ("search_panes", {"pattern": ""}, "pattern"),
    ("search_panes", {"pattern": "x" * 5000}, "pattern"),
    ("search_panes", {}, "pattern"),
    ("list_panes", {"pane_idd": "%0"}, "pane_idd"),
]


def test_every_fixable_argument_is_a_tool_error(tmux_server, shell_pane, sandbox):
    shell_pane("bash")
    names = tmux_server.lines("list-sessions", "-F", "#{session_id} #{session_name}")
    raw = RawLauncher({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                       "LIBTMUX_TOOLSETS": "inspect,manage"})
    try:
        raw.initialize()
        for name, arguments, said in FIXABLE_ARGUMENTS:
            answer = raw.read(raw.call(name, arguments))
            STATS.protocol_cases += 1
            assert_tool_refusal(answer, said, name)
    finally:
        raw.kill()
    assert tmux_server.lines("list-sessions", "-F", "#{session_id} #{session_name}") == names


def test_a_request_before_initialize_names_the_handshake(tmux_server, shell_pane, sandbox):
    shell_pane("bash")
    raw = RawLauncher({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                       "LIBTMUX_TOOLSETS": "inspect"})
    try:
        for method, params in (("tools/call", {"name": "list_sessions", "arguments": {}}),
                               ("tools/list", {})):
            early = raw.read(raw.request(method, params), timeout=30)
            STATS.protocol_cases += 1
            assert early["error"]["code"] == -32602, early
            message = early["error"]["message"]
            assert f"{method} came before initialize" in message
            assert "send initialize first, then notifications/initialized" in message
        assert "result" in raw.read(raw.request("ping", {}))  # ping needs no handshake
        raw.initialize()
        ok = raw.read(raw.call("list_sessions", {}))
        assert ok["result"]["structuredContent"]["count"] == 1
    finally:
        raw.kill()

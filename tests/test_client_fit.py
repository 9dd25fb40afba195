"""What clients and models see, over the installed launcher's real stdio: a small
tools/list, schemas in the subset every client accepts, honest annotations, resource
templates, and no internal document names in anything a client receives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from muxport._internal.capabilities import MCP_HINT_DEFAULTS, META_DEFAULTS
from muxport._internal.schemas import problems
from muxport.testing import text_block

from tests.wire_kit import TIMEOUT, Wire, initialized

WIRE_LIMIT = 60_000
MODEL_LIMIT = 22_300  # 22,000 until request_secret (issue 36) took 260 of it
LEAKS = ("TOOLS.md", "DESIGN")


@pytest.fixture
def wire(tmux_server: Any) -> Iterator[Wire]:
    with initialized(tmux_server) as session:
        yield session


def compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def model_visible(tool: dict[str, Any]) -> int:
    """Bytes of what a model is given of a tool: its name, description and input schema, as
    one JSON object."""
    keys = ("name", "description", "inputSchema")
    return len(compact({key: tool[key] for key in keys if key in tool}))


def test_tools_list_is_small_and_every_schema_is_plain(wire: Wire) -> None:
    size, answer = wire.request("tools/list")
    # the wire is compact JSON: re-encoding the answer gives its bytes back exactly, so the
    # sizes below are the wire's own
    assert compact(answer) == wire.raw[-1].rstrip(b"\n") and size == len(wire.raw[-1])
    tools = answer["result"]["tools"]
    assert len(tools) == 47
    seen = sum(model_visible(t) for t in tools)
    assert size <= WIRE_LIMIT, f"tools/list is {size} bytes on the wire"
    assert seen <= MODEL_LIMIT, f"names + descriptions + input schemas are {seen} bytes"
    print(f"tools/list: {size} bytes on the wire, {seen} model-visible")
    for tool in tools:
        for key in ("inputSchema", "outputSchema"):
            schema = tool[key]
            assert problems(schema) == [], (tool["name"], key)
            jsonschema.Draft202012Validator.check_schema(schema)
        row = tool["_meta"]["muxport/capability"]
        assert not {"input_schema", "output_schema", "description", "name", "kind"} & set(row)
        assert "toolset" in row and not {k for k, v in META_DEFAULTS.items() if row.get(k) == v}


def test_tools_list_is_the_same_in_another_environment(wire: Wire, tmux_server: Any,
                                                       tmp_path: Any) -> None:
    """Its size depends on nothing of the machine: socket, directories, a raised ceiling
    (as long, in digits) and a third-party toolset installed but not selected."""
    _, answer = wire.request("tools/list")
    other_tmp = tmp_path / ("deep-" * 20)
    other_tmp.mkdir()
    other = Wire({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "TMPDIR": str(other_tmp),
                  "HOME": str(tmp_path), "LIBTMUX_MCP_WAIT_MAX_SECONDS": "600",
                  "LIBTMUX_TOOLSETS": "inspect,manage,execute,teardown"})
    try:
        other.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "elsewhere", "version": "0"}})
        _, elsewhere = other.request("tools/list")
    finally:
        other.close()
    here = compact(answer["result"]).replace(b'"maximum":120,', b'"maximum":600,')
    assert here == compact(elsewhere["result"])


def test_annotations_say_what_each_kind_does(wire: Wire) -> None:
    _, answer = wire.request("tools/list")
    hints = {t["name"]: t["annotations"] for t in answer["result"]["tools"]}
    _, read = wire.request("resources/read", {"uri": "tmux://capabilities"})
    report = json.loads(read["result"]["contents"][0]["text"])
    rows = {row["name"]: row for row in report["tools"]}
    # a hint at MCP's own default is left out (the specification reads it so)
    hints = {name: {**MCP_HINT_DEFAULTS, **hint} for name, hint in hints.items()}
    for name, hint in hints.items():
        assert hint == rows[name]["annotations"], name  # the report has every hint
        kind, reach = rows[name]["kind"], rows[name]["process_reach"]
        # every read is read-only, wait_for_run too: it only waits and collects (issue 30)
        read_only = kind == "read"
        assert hint["readOnlyHint"] is read_only, name
        hands_input = reach in ("pane-input", "pane-command")
        assert hint["openWorldHint"] is hands_input, name
        if read_only:
            assert hint["idempotentHint"] is True, name
        amplifies = rows[name]["amplifies_future_input"]
        deletes = kind == "delete" or "delete" in rows[name]["tmux_effects"]
        if not read_only:
            assert hint["destructiveHint"] is (deletes or hands_input or amplifies), name
    for adds in ("create_session", "create_window", "split_window"):  # they only add
        assert hints[adds]["destructiveHint"] is False, adds
        assert hints[adds]["openWorldHint"] is False, adds
    assert hints["respawn_pane"]["destructiveHint"] is True  # it replaces the pane's process
    assert hints["wait_for_run"]["destructiveHint"] is False
    assert hints["wait_for_run"]["readOnlyHint"] is True  # a client asks before no collection
    assert rows["wait_for_run"]["kind"] == "read" and rows["run_shell_command"]["kind"] == "execute"
    assert {rows[n]["toolset"] for n in rows if rows[n]["kind"] == "delete"} == {"teardown"}
    assert hints["run_shell_command"]["openWorldHint"] is True
    assert hints["kill_pane"]["openWorldHint"] is False
    assert hints["select_window"]["idempotentHint"] is True
    assert hints["swap_pane"]["idempotentHint"] is False


def test_a_client_validator_refuses_an_unanchored_channel(wire: Wire) -> None:
    _, answer = wire.request("tools/list")
    tools = {t["name"]: t for t in answer["result"]["tools"]}
    for name in ("wait_for_channel", "signal_channel"):
        validator = jsonschema.Draft202012Validator(tools[name]["inputSchema"])
        assert not validator.is_valid({"channel": "bad channel!"})
        assert validator.is_valid({"channel": "build-done"})


def test_no_internal_document_names_reach_a_client(wire: Wire, tmux_server: Any) -> None:
    pane = tmux_server.shell_pane("bash")
    wire.request("tools/list")
    wire.request("resources/list")
    wire.request("resources/templates/list")
    wire.request("resources/read", {"uri": "tmux://capabilities"})
    wire.request("prompts/list")
    for name, arguments in (
        ("capture_pane", {"pane_id": pane.pane_id}),
        ("get_pane_info", {"pane_id": "%999"}),
        ("wait_for_text", {"pane_id": pane.pane_id, "timeout": 0}),
        ("call_read_tools_batch", {"operations": [{"tool": "nope"}]}),
    ):
        wire.request("tools/call", {"name": name, "arguments": arguments})
    text = b"".join(wire.raw).decode()
    assert "serverInfo" in text and '"instructions"' in text  # the initialize answer too
    for leak in LEAKS:
        assert leak not in text


def test_capability_report_stays_below_100_kb(wire: Wire) -> None:
    size, answer = wire.request("resources/read", {"uri": "tmux://capabilities"})
    (content,) = answer["result"]["contents"]
    report = json.loads(content["text"])
    assert len(content["text"].encode()) < 100_000, size
    rows = {row["name"]: row for row in report["tools"]}
    assert "input_schema" in rows["list_panes"] and "output_schema" in rows["list_panes"]


def test_resource_templates_serve_listings_and_screens_like_the_tools(
    wire: Wire, tmux_server: Any
) -> None:
    pane = tmux_server.shell_pane("bash")
    pane.run("echo resource-line")
    _, listed = wire.request("resources/templates/list")
    templates = {t["uriTemplate"] for t in listed["result"]["resourceTemplates"]}
    assert templates == {
        "tmux://sessions/{session}/windows",
        "tmux://windows/{window}/panes",
        "tmux://panes/{pane}/screen{?lines}",
    }
    _, resources = wire.request("resources/list")
    assert {r["uri"] for r in resources["result"]["resources"]} == {
        "tmux://capabilities", "tmux://sessions"}

    def read(uri: str) -> Any:
        _, answer = wire.request("resources/read", {"uri": uri})
        return answer

    number = pane.pane_id[1:]
    screen = json.loads(read(f"tmux://panes/{number}/screen?lines=2")["result"]["contents"][0]
                        ["text"])
    assert "max_lines" not in screen and len(screen["content"]) <= 2  # the URI named it
    whole = json.loads(read(f"tmux://panes/{number}/screen")["result"]["contents"][0]["text"])
    assert "resource-line" in whole["content"] and "max_lines" not in whole  # 200, its default
    sessions = json.loads(read("tmux://sessions")["result"]["contents"][0]["text"])
    assert [s["id"] for s in sessions["sessions"]] == [pane.session_id]
    windows = json.loads(read(f"tmux://sessions/{pane.session_id[1:]}/windows")["result"]
                         ["contents"][0]["text"])
    assert [w["id"] for w in windows["windows"]] == [pane.window_id]
    panes = json.loads(read(f"tmux://windows/{pane.window_id[1:]}/panes")["result"]
                       ["contents"][0]["text"])
    assert [p["id"] for p in panes["panes"]] == [pane.pane_id]

    missing = read("tmux://panes/999/screen")["error"]
    assert missing["code"] == -32002 and "list_panes" in missing["message"]
    unknown = read("tmux://nowhere")["error"]
    assert unknown["code"] == -32002 and "tmux://panes/{pane}/screen" in unknown["message"]
    bad = read(f"tmux://panes/{number}/screen?lines=many")["error"]
    assert bad["code"] == -32602 and "max_lines" in bad["message"]

    flag = tmux_server.dir / "hook-ran"
    tmux_server.cmd("set-hook", "-g", "after-capture-pane", f"run-shell 'touch {flag}'")
    refused = read(f"tmux://panes/{number}/screen")["error"]
    assert refused["data"]["error_code"] == "hook_present" and not flag.exists()


def test_waits_report_progress_against_their_effective_timeout(wire: Wire) -> None:
    wire.next_id += 1
    wire.send({"jsonrpc": "2.0", "id": wire.next_id, "method": "tools/call", "params": {
        "name": "wait_for_channel", "arguments": {"channel": "fit-progress", "timeout": 2.5},
        "_meta": {"progressToken": "p1"}}})
    notes = []
    while True:
        message = wire.lines.message(TIMEOUT)
        if message.get("method") == "notifications/progress":
            notes.append(message["params"])
        elif message.get("id") == wire.next_id:
            break
    assert message["result"]["structuredContent"]["outcome"] == "timed_out"
    assert notes and all(n["total"] == 2.5 for n in notes)
    assert notes[0]["message"].startswith("waiting for channel fit-progress: ")
    assert all(" s of 2.5 s" in n["message"] for n in notes)


def test_schema_bounds_are_the_caps(wire: Wire, tmux_server: Any) -> None:
    """A client validating by the schema and the server agree: every timeout's maximum is
    the wait ceiling, every max_lines' maximum the line cap, and past them both refuse."""
    _, answer = wire.request("tools/list")
    tools = {t["name"]: t for t in answer["result"]["tools"]}
    bounded = {key: {name for name, t in tools.items() if key in t["inputSchema"]["properties"]}
               for key in ("timeout", "max_lines")}
    assert {"run_shell_command", "wait_for_run", "wait_for_text", "wait_for_channel"} <= (
        bounded["timeout"])
    for name in bounded["timeout"]:
        assert tools[name]["inputSchema"]["properties"]["timeout"]["maximum"] == 120, name
    for name in bounded["max_lines"]:
        assert tools[name]["inputSchema"]["properties"]["max_lines"]["maximum"] == 5000, name
    validator = jsonschema.Draft202012Validator(tools["wait_for_channel"]["inputSchema"])
    assert not validator.is_valid({"channel": "c", "timeout": 121})
    _, over = wire.request("tools/call", {"name": "wait_for_channel",
                                          "arguments": {"channel": "c", "timeout": 121}})
    text = over["result"]["content"][0]["text"]
    assert over["result"]["isError"] and "timeout: at most 120 seconds" in text
    assert "LIBTMUX_MCP_WAIT_MAX_SECONDS" in text
    raised = Wire({"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                   "LIBTMUX_MCP_WAIT_MAX_SECONDS": "300"})
    try:
        raised.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "bounds", "version": "0"}})
        _, listed = raised.request("tools/list")
    finally:
        raised.close()
    ceilings = {t["inputSchema"]["properties"]["timeout"]["maximum"]
                for t in listed["result"]["tools"] if "timeout" in t["inputSchema"]["properties"]}
    assert ceilings == {300}


def test_a_quick_run_answers_in_at_most_120_characters(wire: Wire, tmux_server: Any) -> None:
    """Fields at their default are left out, and the output schema says what each is."""
    pane = tmux_server.shell_pane("bash")
    _, listed = wire.request("tools/list")
    schema = next(t["outputSchema"] for t in listed["result"]["tools"]
                  if t["name"] == "run_shell_command")
    _, answer = wire.request("tools/call", {"name": "run_shell_command",
                                            "arguments": {"pane_id": pane.pane_id,
                                                          "command": "true"}})
    text = answer["result"]["content"][0]["text"]
    assert len(text) <= 120, text
    data = text_block(text, "output")
    assert (data["outcome"], data["exit_status"], data["output"]) == ("completed", 0, [])
    assert answer["result"]["structuredContent"]["output"] == []  # programs read it by name
    left_out = {"framed": True, "lines_missed": False, "truncated": False, "lines_dropped": 0,
                "frame": "local", "output": []}
    for key, default in left_out.items():
        assert key not in data or key == "output", key
        assert schema["properties"][key]["default"] == default, key
        assert key not in schema.get("required", []), key
    # what the call named: no default (absent: as asked), in _meta for programs
    for key in ("pane_id", "effective_timeout", "max_lines"):
        assert key not in answer["result"]["structuredContent"], key
        assert "default" not in schema["properties"][key], key
        assert key not in schema.get("required", []), key
    assert "run_id" not in data  # nothing is left to collect


def test_a_far_look_shows_the_hook_check_the_set_buffer_its_shell_runs() -> None:
    """wait_for_run is read-only, and a far run's look is one of its reads: the look's
    shell hands its text back with the far tmux's set-buffer, a client of its own that
    fires after-set-buffer; the invocation names set-buffer itself, so the hook check
    sees that hook (docs/client-fit.md, "The hook check")."""
    from muxport._internal.hookguard import Wanted
    from muxport_execute.host.far_script import commands

    look = commands(100, 101, "/dev/pts/3", "tmux", "/tmp/far.sock")
    assert "after-set-buffer" in Wanted.of_commands(look).hooks

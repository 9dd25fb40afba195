"""structuredContent is as lean as the text block (docs/answers.md, "What a model reads"):
Claude Code shows its model structuredContent, not the text, so what the call named, what
the body's length says, watch cursors and zeros at their quiet value are left out of both,
and `_meta["muxport/unseen"]` carries them for programs. Over real stdio, every answer valid
against its tool's outputSchema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from muxport.testing import answer_of, text_block, tool_schema_errors

from tests.wire_kit import Wire, initialized

pytestmark = pytest.mark.timeout(120)


def call(wire: Wire, schemas: dict[str, Any], name: str, **arguments: Any) -> dict[str, Any]:
    """One call: its result, checked against the tool's outputSchema."""
    _, answer = wire.request("tools/call", {"name": name, "arguments": arguments})
    result: dict[str, Any] = answer["result"]
    assert not result.get("isError"), result
    assert tool_schema_errors(schemas[name], result["structuredContent"]) == []
    return result


def head(result: dict[str, Any]) -> dict[str, Any]:
    head_line: dict[str, Any] = json.loads(result["content"][0]["text"].partition("\n")[0])
    return head_line


def test_a_model_reads_the_same_fields_in_both_forms(tmux_server: Any, shell_pane: Any) -> None:
    pane = shell_pane("bash")
    with initialized(tmux_server) as wire:
        _, listed = wire.request("tools/list")
        schemas = {tool["name"]: tool["outputSchema"] for tool in listed["result"]["tools"]}

        ran = call(wire, schemas, "run_shell_command", pane_id=pane.pane_id, command="true",
                   timeout=20, max_lines=50)
        structured = ran["structuredContent"]
        assert set(structured) == {"outcome", "exit_status", "output", "seconds"}, structured
        assert structured["output"] == []  # kept for programs; the text leaves it out
        assert head(ran) == {k: v for k, v in structured.items() if k != "output"}
        assert answer_of(ran) == {**structured, "pane_id": pane.pane_id,
                                  "effective_timeout": 20, "max_lines": 50, "invalid_utf8": 0}

        base = call(wire, schemas, "capture_since", pane_id=pane.pane_id)
        assert base["structuredContent"] == {"note": base["structuredContent"]["note"],
                                             "content": []}  # no count, no cursor
        cursor = base["_meta"]["muxport/unseen"]["cursor"]
        pane.run("echo one; echo 'two \"quoted\"'")
        since = call(wire, schemas, "capture_since", pane_id=pane.pane_id, cursor=cursor)
        structured = since["structuredContent"]
        assert "cursor" not in structured and "new_lines" not in structured
        assert structured["content"][-2:] == ["one", 'two "quoted"']
        assert text_block(since["content"][0]["text"], "content") == structured
        assert since["_meta"]["muxport/unseen"]["new_lines"] == len(structured["content"])

        captured = call(wire, schemas, "capture_pane", pane_id=pane.pane_id)
        assert "line_count" not in captured["structuredContent"]
        assert text_block(captured["content"][0]["text"], "content") == (
            captured["structuredContent"])

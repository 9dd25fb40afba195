"""capture_since and wait_for_text against real tmux and real shells (docs/runs-and-waits.md).

Waits are armed before text is printed by either of two signals, never a sleep:
a cursor from capture_since taken first (text after it counts as new), or the
progress notification wait_for_text sends the moment its baseline is taken.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from muxport.testing import MCPError, answer_of, eventually, text_block, tool_schema_errors

WAIT_BOUND = 15.0


async def armed_wait(client: Any, arguments: dict[str, Any], then: Callable[[], None]) -> Any:
    """Call wait_for_text; once it reports it is armed, run ``then`` (print something)."""
    armed = anyio.Event()
    box: dict[str, Any] = {}

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        armed.set()

    async def call() -> None:
        box["result"] = await client.call_tool(
            "wait_for_text", arguments, progress_callback=progress
        )

    with anyio.fail_after(WAIT_BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await armed.wait()
            then()
    return box["result"]


def ok(result: Any) -> dict[str, Any]:
    """The answer as a program reads it: what no model reads comes from _meta."""
    assert not result.is_error, result.content[0].text
    return answer_of(result)


async def test_capture_since_and_wait_over_stdio(stdio_client, shell_pane, tmux_server):
    """Ten looks at a growing, scrolling log concatenate to the log; waits over stdio."""
    pane = shell_pane("bash", width=80, height=10)
    async with stdio_client(toolsets=["inspect"]) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        first = ok(await client.call_tool("capture_since", {"pane_id": pane.pane_id}))
        assert tool_schema_errors(schemas["capture_since"], first) == []
        assert first["content"] == [] and first["new_lines"] == 0 and "continuous" not in first
        cursor, seen, log = first["cursor"], [], []
        for look in range(10):
            # Lines of up to ~130 characters wrap in the 80-column pane; -J joins them back.
            pane.run(
                f"for i in $(seq 1 {look + 3}); "
                f"do printf 'log-{look}-%s-%0{look * 12}d\\n' $i 0; done"
            )
            log += [
                f"log-{look}-{i}-{'0' * (look * 12) if look else '0'}" for i in range(1, look + 4)
            ]
            answer = ok(
                await client.call_tool("capture_since", {"pane_id": pane.pane_id, "cursor": cursor})
            )
            assert answer.get("continuous", True) is True, answer  # absent: true
            assert answer["new_lines"] == len(answer["content"])
            cursor, seen = answer["cursor"], seen + answer["content"]
        assert [line for line in seen if line.startswith("log-")] == log
        # Everything delivered is exactly what the pane now holds after the baseline prompt.
        history = pane.screen(history=True)
        start = next(i for i, line in enumerate(history) if line.startswith("$ for i in"))
        assert seen == history[start : start + len(seen)]

        pane.run('echo READY-""NOW')
        present = ok(
            await client.call_tool(
                "wait_for_text", {"pane_id": pane.pane_id, "patterns": ["READY-NOW"]}
            )
        )
        assert tool_schema_errors(schemas["wait_for_text"], present) == []
        assert present["outcome"] == "present_at_entry"
        assert present["matched"] == "READY-NOW" and present["matched_line"] == "READY-NOW"

        matched = await armed_wait(
            client,
            {"pane_id": pane.pane_id, "patterns": ["FIN-[0-9]+"], "regex": True, "timeout": 10},
            lambda: pane.type('echo FIN-""42'),
        )
        data = ok(matched)
        assert tool_schema_errors(schemas["wait_for_text"], data) == []
        assert data["outcome"] == "matched" and data["matched_line"] == "FIN-42"
        assert data["effective_timeout"] == 10 and 0 <= data["seconds"] < 10
        assert data["output"][-1] == "FIN-42" or "FIN-42" in data["output"]

        # A cancelled wait (the client gives up and sends notifications/cancelled) ends
        # at once and leaves no control client attached.
        before = [c for c in tmux_server.clients() if "control-mode" in c]
        assert before == []
        with pytest.raises(MCPError):
            await client.call_tool(
                "wait_for_text",
                {"pane_id": pane.pane_id, "patterns": ["NEVER-SEEN"], "timeout": 60},
                read_timeout_seconds=1.0,
            )
        await eventually(
            lambda: tmux_server.clients() == [],
            what="the wait's control client to go",
            within=5.0,
        )
        quick = ok(
            await client.call_tool("capture_since", {"pane_id": pane.pane_id, "cursor": cursor})
        )
        assert quick.get("continuous", True)


async def test_cursor_refusals_and_discontinuity(mcp_client, stdio_client, shell_pane, tmux_server):
    tmux_server.cmd("set", "-g", "history-limit", "50")
    pane = shell_pane("bash", height=10)
    other = shell_pane("dash")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        base = ok(await client.call_tool("capture_since", {"pane_id": pane.pane_id}))["cursor"]

        # clear (with E3) empties the history: the anchor is gone.
        pane.run("echo before-clear")
        cursor = ok(
            await client.call_tool("capture_since", {"pane_id": pane.pane_id, "cursor": base})
        )["cursor"]
        # (the E3 sent by hand: `clear` sends it only where TERM's terminfo has it, and
        # tmux 3.2a's panes get TERM=screen, which has none; 3.3a and newer pick
        # tmux-256color where the build machine's terminfo has it)
        pane.run("printf '\\033[H\\033[J\\033[3J'; echo after-\"\"clear")
        cleared = ok(
            await client.call_tool("capture_since", {"pane_id": pane.pane_id, "cursor": cursor})
        )
        assert cleared["continuous"] is False
        assert cleared.get("truncated", False) is False  # cleared, not outrun: nothing known lost
        assert "after-clear" in cleared["content"] and "before-clear" not in cleared["content"]
        assert "not a continuation" in cleared["note"]

        # 400 lines through a 50-line history outrun the cursor.
        pane.run("seq 1 400")
        outrun = ok(
            await client.call_tool(
                "capture_since", {"pane_id": pane.pane_id, "cursor": cleared["cursor"]}
            )
        )
        assert outrun["continuous"] is False
        assert outrun["content"][-1] == "400"
        # lines lost off the top of the history: truncated (issue 30), and the note says so
        assert outrun["truncated"] is True and "history" in outrun["note"]

        # Tampered, other pane, garbage.
        good = outrun["cursor"]
        tampered = good[:-1] + ("0" if good[-1] != "0" else "1")
        for bad, code in (
            (tampered, "invalid_cursor"),
            ("c1.e30.00", "invalid_cursor"),
            ("hello", "invalid_cursor"),
        ):
            refused = await client.call_tool(
                "capture_since", {"pane_id": pane.pane_id, "cursor": bad}
            )
            assert refused.is_error and refused.meta["error_code"] == code
            assert "omit the cursor" in refused.content[0].text
        wrong_pane = await client.call_tool(
            "capture_since", {"pane_id": other.pane_id, "cursor": good}
        )
        assert wrong_pane.is_error and pane.pane_id in wrong_pane.content[0].text

        # A cursor from another muxport process is foreign.
        async with stdio_client(toolsets=["inspect"]) as remote:
            foreign = await remote.call_tool(
                "capture_since", {"pane_id": pane.pane_id, "cursor": good}
            )
        assert foreign.is_error and foreign.meta["error_code"] == "invalid_cursor"

        # A respawned pane has a new process: the cursor is refused, naming the recovery.
        tmux_server.cmd("respawn-pane", "-k", "-t", pane.pane_id, "sh")
        stale = await client.call_tool("capture_since", {"pane_id": pane.pane_id, "cursor": good})
        assert stale.is_error and stale.meta["error_code"] == "stale_cursor"
        assert "respawned" in stale.content[0].text and "omit the cursor" in stale.content[0].text
        waited = await client.call_tool(
            "wait_for_text", {"pane_id": pane.pane_id, "cursor": good, "timeout": 0}
        )
        assert waited.is_error and waited.meta["error_code"] == "stale_cursor"


async def test_continuous_output_is_never_discontinuous(mcp_client, shell_pane, tmux_server):
    """Reading while the pane scrolls as fast as it can: every look continues the last."""
    tmux_server.cmd("set", "-g", "history-limit", "100000")
    pane = shell_pane("bash", height=8)
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        cursor = ok(await client.call_tool("capture_since", {"pane_id": pane.pane_id}))["cursor"]
        pane.type("seq -f 'n%g' 1 20000; echo SEQ-\"\"END")
        seen: list[str] = []
        last = 0
        with anyio.fail_after(60):
            while "SEQ-END" not in seen:
                answer = ok(
                    await client.call_tool(
                        "capture_since",
                        {"pane_id": pane.pane_id, "cursor": cursor, "max_lines": 5000},
                    )
                )
                assert "continuous" not in answer  # true, its default
                numbers = [int(line[1:]) for line in answer["content"] if line[1:].isdigit()]
                # Lines follow on exactly from the last look unless the budget dropped the oldest.
                if numbers and not answer.get("lines_dropped"):
                    assert numbers == list(range(last + 1, last + 1 + len(numbers)))
                elif numbers:
                    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
                    assert numbers[0] > last
                last = numbers[-1] if numbers else last
                cursor, seen = answer["cursor"], seen + answer["content"]
    assert last == 20000


@pytest.mark.parametrize(
    "arguments, fragment",
    [
        ({"patterns": ["a("], "regex": True}, "not a usable regular expression"),
        ({"patterns": ["x"] * 33}, "at most 32"),
        ({"patterns": ["é" * 2049]}, "at most 4096"),
        ({"patterns": ["a" * 4000] * 5}, "the limit is 16384"),
        ({"patterns": [""]}, "at least 1"),
        ({"timeout": -1}, "greater than or equal to 0"),
        ({"max_lines": 0}, "greater than or equal to 1"),
        ({"cursor": "c" * 5000}, "at most 4096"),
    ],
)
async def test_wait_bad_arguments_are_tool_errors(mcp_client, shell_pane, arguments, fragment):
    pane = shell_pane("dash")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        result = await client.call_tool("wait_for_text", {"pane_id": pane.pane_id, **arguments})
        assert result.is_error and result.meta["error_code"] == "invalid_argument"
        assert fragment in result.content[0].text
        missing = await client.call_tool("wait_for_text", {"pane_id": "%999"})
        assert missing.is_error and "list_panes" in missing.content[0].text
        bare = await client.call_tool("capture_since", {"pane_id": "3"})
        assert bare.is_error and "bare number" in bare.content[0].text


async def test_many_waits_share_one_client_and_cancel_cleanly(mcp_client, shell_pane, tmux_server):
    """200 waits on one connection: one control client, a quick call still quick,
    and cancelled waits leave no client and no task behind."""
    pane = shell_pane("dash")
    async with mcp_client(toolsets=["inspect"]) as (client, app):
        tasks_before = len(asyncio.all_tasks())
        armed = 0
        all_armed = anyio.Event()

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            nonlocal armed
            if progress == 0.0:
                armed += 1
                if armed == 200:
                    all_armed.set()

        results: list[Any] = []

        async def one() -> None:
            results.append(
                await client.call_tool(
                    "wait_for_text",
                    {"pane_id": pane.pane_id, "timeout": 60},
                    progress_callback=progress,
                )
            )

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for _ in range(200):
                    group.start_soon(one)
                await all_armed.wait()
                control = [c for c in tmux_server.clients() if "control-mode" in c]
                assert len(control) == 1
                started = anyio.current_time()
                ok(await client.call_tool("list_sessions", {}))
                assert anyio.current_time() - started < 2.0
                pane.type("echo wake")
        assert len(results) == 200
        assert all(ok(r)["outcome"] == "matched" for r in results)
        await eventually(
            lambda: tmux_server.clients() == [],
            what="the shared control client to stop",
            within=5.0,
        )

        # Cancel a wait through the client's read timeout (notifications/cancelled).
        with pytest.raises(MCPError):
            await client.call_tool(
                "wait_for_text", {"pane_id": pane.pane_id, "timeout": 60}, read_timeout_seconds=0.5
            )
        await eventually(
            lambda: tmux_server.clients() == [],
            what="the cancelled wait's client to stop",
            within=5.0,
        )
        registry = app.server.services.feeds
        await eventually(
            lambda: registry.feeds == {} and len(asyncio.all_tasks()) <= tasks_before,
            what="the cancelled wait's tasks to end", within=5.0,
        )


async def test_watch_answers_report_the_line_budget_used(mcp_client, shell_pane):
    pane = shell_pane("dash")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        since = ok(await client.call_tool(
            "capture_since", {"pane_id": pane.pane_id, "max_lines": 5000}
        ))
        over = await client.call_tool(  # the schema's maximum is the cap: refused, not clamped
            "capture_since", {"pane_id": pane.pane_id, "max_lines": 5001}
        )
        waited = ok(await client.call_tool(
            "wait_for_text", {"pane_id": pane.pane_id, "timeout": 0, "cursor": since["cursor"]}
        ))
    assert since["max_lines"] == 5000 and "clamped" not in since["note"]
    assert over.is_error and "max_lines: Input should be less than or equal to 5000" in (
        over.content[0].text)
    assert waited["outcome"] == "timed_out" and waited["max_lines"] == 200  # in _meta


async def test_a_plain_matched_wait_sends_no_field_at_its_default(mcp_client, shell_pane):
    """truncated: false, lines_dropped: 0, max_lines: 200, effective_timeout: 30 (and a note
    when there is nothing to say) are left out; the output schema gives each default."""
    pane = shell_pane("bash")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        schema = {t.name: t for t in (await client.list_tools()).tools}["wait_for_text"]
        data = ok(await armed_wait(
            client, {"pane_id": pane.pane_id, "patterns": ["ready"]},
            lambda: pane.type('echo server is re""ady on :8080'),
        ))
        asked = ok(await armed_wait(
            client, {"pane_id": pane.pane_id, "patterns": ["again"], "timeout": 10},
            lambda: pane.type('echo ag""ain'),
        ))
    assert tool_schema_errors(schema.output_schema, data) == []
    assert data["outcome"] == "matched" and data["matched_line"] == "server is ready on :8080"
    # cursor, effective_timeout and max_lines: for programs, in _meta (ok puts them back)
    assert set(data) == {"outcome", "matched", "matched_line", "output", "cursor", "seconds",
                         "effective_timeout", "max_lines"}
    defaults = {k: v.get("default") for k, v in schema.output_schema["properties"].items()}
    assert defaults["truncated"] is False and defaults["lines_dropped"] == 0
    assert defaults["max_lines"] is None and defaults["effective_timeout"] is None  # in _meta
    assert data["effective_timeout"] == 30
    assert asked["effective_timeout"] == 10  # not the default: sent


def rest_call(note: str) -> dict[str, int]:
    """The skip and max_lines of the capture_pane call a watch's note names."""
    found = re.search(r"capture_pane with history: true, skip: (\d+) and max_lines: (\d+)", note)
    assert found, note
    return {"skip": int(found[1]), "max_lines": int(found[2])}


async def test_lines_a_watch_leaves_out_come_back_from_the_call_its_note_names(
    mcp_client, shell_pane
):
    """capture_since and wait_for_text keep the newest lines; the note names the
    capture_pane call (history, skip, max_lines) that returns exactly the ones left out."""
    pane = shell_pane("bash")
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        base = ok(await client.call_tool("capture_since", {"pane_id": pane.pane_id}))
        pane.run("printf 'c1\\nc2\\nc3\\nc4\\nc5\\n'")
        since = ok(await client.call_tool(
            "capture_since", {"pane_id": pane.pane_id, "cursor": base["cursor"], "max_lines": 2}
        ))
        since_rest = ok(await client.call_tool(
            "capture_pane", {"pane_id": pane.pane_id, "history": True, **rest_call(since["note"])}
        ))
        # the wait ends on the unfinished line DONE (the program then sleeps: nothing follows)
        waited = ok(await armed_wait(
            client, {"pane_id": pane.pane_id, "patterns": ["DONE"], "max_lines": 2},
            lambda: pane.type("printf 'w1\\nw2\\nw3\\nDO%sNE' ''; sleep 30"),
        ))
        wait_rest = ok(await client.call_tool(
            "capture_pane", {"pane_id": pane.pane_id, "history": True, **rest_call(waited["note"])}
        ))
    assert since["content"] == ["c4", "c5"] and since["lines_dropped"] == 4
    assert "by max_lines 2" in since["note"]
    assert since_rest["content"][1:] == ["c1", "c2", "c3"], since_rest
    assert since_rest["content"][0].startswith("$ printf 'c1")
    assert waited["output"] == ["w3", "DONE"] and waited["lines_dropped"] == 3
    assert waited["truncated"] is True and waited["max_lines"] == 2
    assert wait_rest["content"][1:] == ["w1", "w2"], wait_rest
    assert wait_rest["content"][0].startswith("$ printf 'w1")


async def test_a_full_scrollback_that_scrolls_is_not_reported_as_cleared(mcp_client, tmux_server):
    """tmux drops a full history's oldest tenth at once (issue 21). Here the rows are exact
    (lines written to the pane's terminal, no prompt): the cursor's anchor (lines 299-302)
    loses 299 and 300 while 301 and 302 still open the history, so nothing was lost; later
    more lines than the history keeps outrun the cursor, which says so, not "cleared"."""
    tmux_server.cmd("set", "-g", "history-limit", "100")
    pane = tmux_server.cmd(
        "new-session", "-d", "-P", "-F", "#{pane_id}", "-x", "80", "-y", "10",
        "stty -echo; exec sleep 100000",
    ).strip()
    tty = tmux_server.cmd("display-message", "-p", "-t", pane, "#{pane_tty}").strip()

    def put(lines: list[str]) -> None:
        Path(tty).write_text("".join(f"{line}\n" for line in lines))  # a terminal: no wait

    async def write(lines: list[str]) -> None:
        put(lines)
        await eventually(
            lambda: tmux_server.cmd("capture-pane", "-p", "-t", pane).split(),
            lambda shown: lines[-1] in shown, what=f"{lines[-1]} on the screen",
        )

    async def wait_with(cursor: str, pattern: str) -> dict[str, Any]:
        return ok(await client.call_tool("wait_for_text", {
            "pane_id": pane, "patterns": [pattern], "cursor": cursor, "timeout": 10,
            "max_lines": 5000,
        }))

    await write([str(n) for n in range(1, 303)])  # the history is full
    async with mcp_client(toolsets=["inspect"]) as (client, _app):
        base = ok(await client.call_tool("wait_for_text", {"pane_id": pane, "timeout": 0}))
        await write([*(f"line-{n}" for n in range(1, 101)), "FIN-1"])
        kept = await wait_with(base["cursor"], "FIN-1")
        assert kept["outcome"] == "matched" and kept.get("note") is None, kept.get("note")
        assert kept["output"] == [*(f"line-{n}" for n in range(1, 101)), "FIN-1"]
        assert kept.get("truncated", False) is False

        await write([*(f"more-{n}" for n in range(1, 151)), "FIN-2"])
        outran = await wait_with(kept["cursor"], "FIN-2")
        assert outran["outcome"] == "matched" and outran["output"][-1] == "FIN-2"
        assert "cleared" not in outran["note"] and "history keeps" in outran["note"]
        assert outran["truncated"] is True  # lines lost off the top (issue 30)


async def test_a_model_follows_a_pane_with_last_from_the_text_alone(stdio_client, shell_pane):
    """What a model reads (the text block) has no cursor; cursor "last" continues from the
    newest look, by capture_since or wait_for_text, and a pane never looked at gets a
    baseline (docs/answers.md)."""
    pane = shell_pane("bash", width=80, height=10)
    async with stdio_client(toolsets=["inspect"]) as client:
        async def text(tool: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(tool, {"pane_id": pane.pane_id, **arguments})
            assert not result.is_error, result.content[0].text
            (block,) = result.content
            assert answer_of(result)["cursor"].startswith("c2.")  # for programs, in _meta
            assert "c2." not in block.text
            return str(block.text)

        first = text_block(await text("capture_since", {"cursor": "last"}), "content")
        assert first["content"] == [] and "baseline" in first["note"]
        pane.run("printf 'one\\ntwo\\n'")
        said = await text("capture_since", {"cursor": "last"})
        assert said.startswith("{}\n") and said.endswith("\none\ntwo"), said  # lines, as shown
        assert text_block(said, "content")["content"][1:] == ["one", "two"]  # after the $ line
        pane.run("echo three")
        waited = text_block(await text("wait_for_text", {"patterns": ["three"], "cursor": "last",
                                                         "timeout": 10}), "output")
        assert waited["outcome"] == "matched" and "three" in waited["output"], waited
        pane.run("echo four")  # after the wait's look: only this is new
        after = text_block(await text("capture_since", {"cursor": "last"}), "content")
        assert [line for line in after["content"] if not line.startswith("$")] == ["four"]

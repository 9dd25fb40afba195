"""waiting_for_input (issue 11): a run blocked on the terminal answers early, from /proc."""

from __future__ import annotations

import shutil
from typing import Any

import anyio
import pytest
from execute_kit import call, run


async def answer_and_collect(client: Any, pane: str, text: str, run_id: str) -> dict[str, Any]:
    await call(client, "paste_text", {"pane_id": pane, "text": text, "enter": True})
    return await call(client, "wait_for_run", {"run_id": run_id, "timeout": 20})


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash", "ksh"])
async def test_prompts_are_reported_with_echo(stdio_client, shell_pane, rc_pane, shell):
    p = (rc_pane(shell) if shell == "ksh" else shell_pane(shell)).pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        asked = await run(client, p, "echo asking; read x; echo \"got $x\"; exit 2")
        assert (asked["outcome"], asked["echo_off"]) == ("waiting_for_input", False)
        assert asked["output"] == ["asking"] and "paste_text" in asked["note"]
        assert "exit_status" not in asked
        done = await answer_and_collect(client, p, "hello", asked["run_id"])
        assert (done["outcome"], done["exit_status"], done["output"]) == (
            "completed", 2, ["asking", "hello", "got hello"]  # the terminal echoed the answer
        )
        yes_no = await run(
            client, p, "printf 'Do you want to continue? [y/n] '; read a; [ \"$a\" = y ]"
        )
        assert yes_no["outcome"] == "waiting_for_input" and yes_no["echo_off"] is False
        assert yes_no["prompt"] == ["Do you want to continue? [y/n]"]
        no = await answer_and_collect(client, p, "n", yes_no["run_id"])
        assert no["exit_status"] == 1


async def test_secret_prompt_and_repl(stdio_client, shell_pane):
    p = shell_pane("bash").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        secret = await run(client, p, "read -s -p 'Token: ' t; echo; [ \"$t\" = s3cret ]")
        assert (secret["outcome"], secret["echo_off"]) == ("waiting_for_input", True)
        assert secret["prompt"] == ["Token:"] and "ask the user" in secret["note"].lower()
        right = await answer_and_collect(client, p, "s3cret", secret["run_id"])
        assert right["exit_status"] == 0
        repl = await run(client, p, "python3 -q")
        assert (repl["outcome"], repl["echo_off"]) == ("waiting_for_input", False)
        again = await call(client, "wait_for_run", {"run_id": repl["run_id"]})
        assert again["outcome"] == "waiting_for_input"
        left = await answer_and_collect(client, p, "raise SystemExit(7)", repl["run_id"])
        assert left["exit_status"] == 7


async def test_long_runs_are_not_waiting(stdio_client, shell_pane):
    p, q = shell_pane("bash").pane_id, shell_pane("zsh").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        answers: dict[str, dict[str, Any]] = {}

        async def ask(name: str, pane: str, command: str, wait: float) -> None:
            answers[name] = await run(client, pane, command, timeout=wait)

        async with anyio.create_task_group() as group:  # two panes, at the same time
            group.start_soon(ask, "slow", p, "sleep 5; echo slept", 3)
            # A program polling a pipe and the terminal is busy, not waiting on the terminal.
            group.start_soon(
                ask, "mixed", q,
                "python3 -c 'import os,select; r,w=os.pipe(); select.select([0, r], [], [])'", 1.5,
            )
        slow, mixed = answers["slow"], answers["mixed"]
        assert slow["outcome"] == "timed_out" and slow.get("echo_off") is None
        assert mixed["outcome"] == "timed_out"
        done = await call(client, "wait_for_run", {"run_id": slow["run_id"], "timeout": 20})
        assert (done["outcome"], done["output"]) == ("completed", ["slept"])
        await call(client, "wait_for_run", {"run_id": mixed["run_id"], "timeout": 20})


async def test_sudo_password_through_su(stdio_client, reach_pane, test_user):
    if shutil.which("sudo") is None:
        pytest.skip("sudo is not installed")
    pane = reach_pane("su").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        # answered as waiting (at the prompt), not at the end of its timeout
        asked = await run(client, pane, "sudo -k; sudo true; echo status $?", timeout=60)
        assert (asked["outcome"], asked["echo_off"], asked["frame"]) == (
            "waiting_for_input", True, "typed"
        )
        assert "password" in asked["prompt"][-1]
        done = await answer_and_collect(client, pane, test_user.password, asked["run_id"])
        assert (done["outcome"], done["exit_status"], done["output"][-1]) == (
            "completed", 0, "status 0"
        )


async def test_over_ssh_the_note_says_input_waits_are_not_seen(stdio_client, reach_pane):
    pane = reach_pane("ssh").pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        asked = await run(client, pane, "read x; echo \"got $x\"", timeout=1)
        assert asked["outcome"] == "timed_out" and "cannot see" in asked["note"]
        done = await answer_and_collect(client, pane, "over", asked["run_id"])
        assert done["output"] == ["over", "got over"]


async def test_fish_read_with_a_prompt_is_waiting_for_input(stdio_client, fish_pane):
    """fish's read polls the terminal beside its own eventfds and a FIFO: still a read."""
    p = fish_pane().pane_id
    async with stdio_client(toolsets=["execute"]) as client:
        asked = await run(client, p, "read -P 'name> ' x; echo \"got $x\"; exit 3")
        assert (asked["outcome"], asked["echo_off"]) == ("waiting_for_input", False), asked
        assert asked["prompt"][-1].startswith("name>"), asked["prompt"]
        done = await answer_and_collect(client, p, "ann", asked["run_id"])
        assert (done["outcome"], done["exit_status"]) == ("completed", 3), done
        assert "got ann" in done["output"], done["output"]

"""Runs in fish with the configurations people have (issue 30): a config.fish that prints,
a prompt of fish's own ending in ``>`` behind su, ``read -P`` on a fish whose man-page
completions are not generated yet (docs/runs-and-waits.md, "fish")."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from execute_kit import call, run
from muxport.testing import ShellPane, eventually, reach

# A person's config.fish: a greeting, a prompt with the status and the directory, and an
# unguarded line that prints (in every fish, a script's too), to stdout and stderr.
NOISY = (
    "set -g fish_greeting 'Welcome, friend'\n"
    "function fish_prompt\n"
    "    set -l last $status\n"
    "    printf '%s@%s %s' $USER (prompt_hostname) (prompt_pwd)\n"
    "    test $last -ne 0; and printf ' [%s]' $last\n"
    "    printf ' $ '\n"
    "end\n"
    "function hello; echo hello from config.fish; end\n"
    "echo NOISE from config.fish\n"
    "echo NOISE on stderr >&2\n"
)
# fish's "informative" prompt (fish_config prompt choose informative): its second row is
# a bare "> "; and a prompt naming the host, as "mybox> "
INFORMATIVE = (
    "function fish_prompt\n"
    "    printf '[%s] %s@%s %s\\n> ' (date +%H:%M:%S) $USER (prompt_hostname) $PWD\n"
    "end\n"
)
HOST_PROMPT = "function fish_prompt; printf '%s> ' (prompt_hostname); end\n"
REAL_PROMPT = NOISY.split("echo NOISE")[0]  # the greeting and the prompt, without noise


@contextmanager
def fish_config(user: reach.TestUser, text: str) -> Iterator[None]:
    """The test user's config.fish holds ``text`` (then the ready signal) meanwhile."""
    path = user.home / ".config" / "fish" / "config.fish"
    before = path.read_text()
    path.write_text(text + before)
    try:
        yield
    finally:
        path.write_text(before)


async def check_own_output(client: Any, pane: str, frame: str, noisy: bool = False) -> None:
    """Runs answer their own output; ``noisy``: the configuration runs for the command (its
    functions are there) and prints nothing into the output."""
    runs = [("echo hi", ["hi"], 0), ("echo a; echo b; exit 3", ["a", "b"], 3)]
    for command, output, status in runs + [("hello", ["hello from config.fish"], 0)] * noisy:
        done = await run(client, pane, command, frame=frame)
        assert (done["outcome"], done["output"], done["exit_status"], done["frame"]) == (
            "completed", output, status, frame), done
        assert done["framed"] is True and "note" not in done, done


async def test_a_fish_config_that_prints_stays_out_of_the_output(stdio_client, fish_pane):
    pane = fish_pane(config=NOISY)
    async with stdio_client(toolsets=["execute"]) as client:
        for frame in ("local", "typed"):
            await check_own_output(client, pane.pane_id, frame, noisy=True)
    assert any("NOISE from config.fish" in row for row in pane.screen())  # above the output


@pytest.mark.parametrize("how", ["su-fish", "ssh-fish"])
async def test_a_far_fish_config_that_prints_stays_out_of_the_output(
    stdio_client, reach_pane, fish_user, how
):
    with fish_config(fish_user, NOISY):
        pane = reach_pane(how)
        async with stdio_client(toolsets=["execute"]) as client:
            await check_own_output(client, pane.pane_id, "typed", noisy=True)


async def at_prompt(pane: ShellPane) -> None:
    """Once the prompt is drawn, fish's first-prompt setup has run in the pane's fish."""
    await eventually(pane.screen, lambda rows: any(row.rstrip().endswith(("$", ">"))
                                                   for row in rows), what="the fish prompt")


READ = "read -P 'your name? ' x; echo got $x; exit 3"


async def answers_the_read(client: Any, pane: str, mode: str = "") -> None:
    asked = await run(client, pane, READ, timeout=8)
    assert (asked["outcome"], asked.get("echo_off")) == ("waiting_for_input", False), asked
    assert asked["prompt"][-1] == f"{mode}your name?", asked["prompt"]
    assert "python3" not in asked["note"], asked["note"]
    await call(client, "paste_text", {"pane_id": pane, "text": "ann", "enter": True})
    done = await call(client, "wait_for_run", {"run_id": asked["run_id"], "timeout": 20})
    assert (done["outcome"], done["exit_status"], done["output"][-1]) == (
        "completed", 3, "got ann"), done


@pytest.mark.skipif(shutil.which("python3") is None, reason="fish scans man pages with python")
@pytest.mark.parametrize("keys", ["emacs", "vi"])
async def test_read_with_a_prompt_in_a_fish_of_a_person(stdio_client, fish_pane, tmux_server,
                                                         keys):
    """``read -P`` in a fish with a person's config, before its man-page completions exist:
    the run's fish must not start fish's first-prompt setup (its man-page scan would work
    in the run's foreground group: timed_out after 8 s, the note naming python3)."""
    config = REAL_PROMPT + ("fish_vi_key_bindings\n" if keys == "vi" else "")
    pane = fish_pane(config=config)
    await at_prompt(pane)
    # as on a fish's first start, where the pane's own scan has not made them yet when
    # the run's fish looks
    shutil.rmtree(next(tmux_server.dir.glob("fish-*")) / "fish" / "generated_completions")
    async with stdio_client(toolsets=["execute"]) as client:
        await answers_the_read(client, pane.pane_id, "[I] " if keys == "vi" else "")
        # and again: nothing of the first run's is left in the pane's way
        await answers_the_read(client, pane.pane_id, "[I] " if keys == "vi" else "")


@pytest.mark.skipif(shutil.which("python3") is None, reason="fish scans man pages with python")
async def test_read_with_a_prompt_in_fish_behind_su(stdio_client, reach_pane, fish_user):
    pane = reach_pane("su-fish")
    await at_prompt(pane)
    completions = fish_user.home / ".local/share/fish/generated_completions"
    shutil.rmtree(completions)
    try:
        async with stdio_client(toolsets=["execute"]) as client:
            await answers_the_read(client, pane.pane_id)
    finally:
        completions.mkdir(exist_ok=True)
        shutil.chown(completions, fish_user.name, fish_user.name)


@pytest.mark.parametrize("prompt", [INFORMATIVE, HOST_PROMPT])
async def test_fish_prompts_ending_in_gt_behind_su(stdio_client, reach_pane, fish_user, prompt):
    """Behind su tmux names fish as the foreground program: its prompt is a shell's, however
    it ends; a REPL started there is named too, and still refused."""
    with fish_config(fish_user, prompt):
        pane = reach_pane("su-fish")
        async with stdio_client(toolsets=["execute"]) as client:
            await check_own_output(client, pane.pane_id, "typed")
            pane.type("python3 -q")
            await eventually(pane.screen, lambda rows: any(
                row.startswith(">>>") for row in rows), what="python's prompt")
            refused = await client.call_tool(
                "run_shell_command", {"pane_id": pane.pane_id, "command": "echo x"})
            assert refused.is_error and refused.meta["reason"] == "not_a_shell", refused

"""A far login whose rc file prints (issue 30): a title escape, a word without a newline,
a whole line. Debian's bash reads ~/.bashrc for every ssh command, so whatever it prints
comes before the output of each far command muxport runs: the startup check, the forked
clients (control mode for waits, file commands). muxport reads past it everywhere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from muxport.testing import CheckedCalls, MCPError, eventually

pytestmark = pytest.mark.timeout(90)

NOISES = {
    "title": "printf '\\033]0;far title\\007'\n",
    "no-newline": "printf x\n",
    "lines": "echo ok; echo missing; printf 'motd without end'\n",
}


@pytest.fixture(params=sorted(NOISES))
def noisy(far, request) -> Iterator[str]:
    rc = far.user.home / ".bashrc"
    kept = rc.read_text()
    first, _, rest = kept.partition("\n")  # the kit's PATH line, then Debian's (its top
    rc.write_text(f"{first}\n{NOISES[request.param]}{rest}")  # runs for ssh commands too)
    try:
        yield request.param
    finally:
        rc.write_text(kept)


# both transports: a forked client is an ssh session of its own, whose output has the far
# login's text and the host's marker first; the hook marker then ends it
@pytest.mark.parametrize("transport", ["socket", "fork"])
async def test_muxport_reads_past_what_a_far_rc_prints(far, noisy, armed_call, transport):
    async with far.client(env={"MUXPORT_TRANSPORT": transport}) as client:
        call = CheckedCalls(client)
        made = await call("create_session", session_name="noisy")
        listed = await call("list_sessions")
        assert [s["name"] for s in listed["sessions"]] == ["noisy"], noisy
        # a failing after-hook (docs/tmux-facts.md, "Hooks that fail"): done, with a note
        far.server().cmd("set-hook", "-g", "after-new-window", "select-pane -l")
        window = await call("create_window", session_id=made["id"])
        assert window["id"].startswith("@") and "no last pane" in window["note"], window
        far.server().cmd("set-hook", "-gu", "after-new-window")
        pane = made["pane_id"]
        run = await call("run_shell_command", pane_id=pane, command="echo a; exit 3")
        assert (run["output"], run["exit_status"]) == (["a"], 3), (noisy, run)
        found = await armed_call(
            client, "wait_for_text", {"pane_id": pane, "patterns": ["late-XYZ"], "timeout": 20},
            lambda: far.server().cmd(*far.server().send_keys, "-t", pane,
                                           'echo late-""XYZ', "Enter"))
        assert not found.is_error, found.content[0].text
        assert found.structured_content["matched_line"] == "late-XYZ", noisy
        woken = await armed_call(
            client, "wait_for_channel", {"channel": "noisy-go", "timeout": 20},
            lambda: far.server().cmd("wait-for", "-S", "noisy-go"), "registered")
        assert woken.structured_content["outcome"] == "signalled", (noisy, woken)


def _ssh_clients_naming(word: str) -> list[str]:
    """This machine's ssh clients whose command names ``word`` (not the far side's shell:
    the far host is this machine too)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
        except OSError:
            continue
        if words and Path(words[0].decode()).name == "ssh" and word.encode() in words[-2]:
            found.append(b" ".join(words).decode("utf-8", "replace"))
    return found


async def test_a_wait_cancelled_while_a_slow_far_login_runs_leaves_no_client(far):
    """A forked far client (the fork transport's wait-for) is read past its login's text
    before it is handed over; a call cancelled meanwhile (the client's read timeout) ends
    that client at once, not at shutdown: nobody else would (docs/ssh.md, "What a far
    login prints")."""
    rc, channel = far.user.home / ".bashrc", "slow-login-chan"
    kept = rc.read_text()
    first, _, rest = kept.partition("\n")
    # only the waiter's login is slow: bash sees the ssh command in BASH_EXECUTION_STRING
    slow = f'case "$BASH_EXECUTION_STRING" in *{channel}*) sleep 15;; esac\n'
    rc.write_text(f"{first}\n{slow}{rest}")
    try:
        async with far.client(env={"MUXPORT_TRANSPORT": "fork"}) as client:
            await CheckedCalls(client)("create_session", session_name="slow")
            with pytest.raises(MCPError):
                await client.call_tool("wait_for_channel", {"channel": channel, "timeout": 60},
                                       read_timeout_seconds=3.0)
            await eventually(lambda: _ssh_clients_naming(channel), lambda seen: seen == [],
                             what="the cancelled wait's ssh client to end", within=8.0)
    finally:
        rc.write_text(kept)

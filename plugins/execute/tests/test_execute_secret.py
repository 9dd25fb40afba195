"""request_secret (docs/asking.md, "Secrets"): sudo asks a test user's password; the person
types it on muxport's one-time page (driven as a browser would), muxport types it into the
pane, and the run ends with status 0. The password is in no MCP message (the recorded
wire), no audit line, no log and no tmux buffer. Both protocol eras."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from typing import Any

import pytest
from execute_kit import call, run
from muxport.testing import Person, fill_in, person_client


def env(tmux_server: Any, audit: str) -> dict[str, str]:
    return {"LIBTMUX_SOCKET_PATH": tmux_server.socket_path, "LIBTMUX_TOOLSETS": "execute",
            "LIBTMUX_AUDIT": audit, "MUXPORT_ASK_SECONDS": "30"}


def buffers(tmux_server: Any) -> str:
    done = subprocess.run([tmux_server.binary, "-S", tmux_server.socket_path, "list-buffers",
                           "-F", "#{buffer_sample}"], capture_output=True, text=True,
                          timeout=10, check=False)
    return done.stdout


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_sudo_password_through_the_page(tmux_server, reach_pane, test_user, tmp_path,
                                               mode):
    if shutil.which("sudo") is None:
        pytest.skip("sudo is not installed")
    pane = reach_pane("su").pane_id
    statuses: list[tuple[int, int]] = []

    async def browser(url: str) -> None:
        statuses.append(await fill_in(url, test_user.password))

    person = Person(["accept"], on_url=browser)
    wire, audit = tmp_path / "wire.jsonl", tmp_path / "audit.jsonl"
    log = tmp_path / "stderr.log"
    async with person_client(env(tmux_server, str(audit)), person, mode, record=wire,
                             stderr=log) as client:
        asked = await run(client, pane, "sudo -k; sudo true; echo status $?", timeout=60)
        assert (asked["outcome"], asked["echo_off"]) == ("waiting_for_input", True)
        sent = await call(client, "request_secret", {"run_id": asked["run_id"]})
        done = await call(client, "wait_for_run", {"run_id": asked["run_id"], "timeout": 30})
    assert sent == {"run_id": asked["run_id"], "pane_id": pane, "sent": True,
                    "note": f"call wait_for_run with run_id {asked['run_id']} for its exit status"}
    assert (done["outcome"], done["exit_status"], done["output"][-1]) == (
        "completed", 0, "status 0")
    assert statuses == [(200, 200)]
    [asked_person] = person.asked
    assert asked_person.mode == "url" and asked_person.url.startswith("http://127.0.0.1:")
    recorded = wire.read_text()
    assert "elicitation/create" in recorded or "input_required" in recorded
    assert asked_person.url in recorded  # the page's address went over the wire...
    assert test_user.password not in recorded  # ...the password never did
    assert test_user.password not in audit.read_text()
    assert test_user.password not in buffers(tmux_server)
    assert test_user.password not in log.read_text()  # muxport's log


async def test_a_client_without_url_mode_is_told_to_ask_the_user(
        tmux_server, shell_pane, tmp_path):
    pane = shell_pane("bash").pane_id
    async with person_client(env(tmux_server, str(tmp_path / "a")), None) as client:
        asked = await run(client, pane, "read -s x; echo got", timeout=10)
        assert (asked["outcome"], asked["echo_off"]) == ("waiting_for_input", True)
        refused = await client.call_tool("request_secret", {"run_id": asked["run_id"]})
        assert refused.is_error and refused.meta["error_code"] == "cannot_ask_user"
        assert "type the secret into" in refused.content[0].text
        not_secret = await run(client, shell_pane("dash").pane_id, "read x", timeout=10)
        other = await client.call_tool("request_secret", {"run_id": not_secret["run_id"]})
        assert other.is_error and other.meta["error_code"] == "not_waiting_for_secret"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("answer", ["accept", "decline"])
async def test_read_s_gets_the_secret_only_when_the_person_sends_it(
        tmux_server, shell_pane, tmp_path, mode, answer):
    pane = shell_pane("bash").pane_id
    secret = "pw-" + tmp_path.name[-12:]

    async def browser(url: str) -> None:
        assert await fill_in(url, secret) == (200, 200)

    person = Person([answer], on_url=browser)
    wire = tmp_path / "wire.jsonl"
    async with person_client(env(tmux_server, str(tmp_path / "audit")), person, mode,
                             record=wire) as client:
        # the command names the secret's hash only: the wire must not carry the secret
        check = (f"read -s x; test \"$(printf %s \"$x\" | sha256sum | cut -c1-64)\" = "
                 f"{hashlib.sha256(secret.encode()).hexdigest()}; echo status $?")
        asked = await run(client, pane, check, timeout=10)
        assert (asked["outcome"], asked["echo_off"]) == ("waiting_for_input", True)
        sent = await client.call_tool("request_secret", {"run_id": asked["run_id"]})
        if answer == "accept":
            assert not sent.is_error, sent.content
            done = await call(client, "wait_for_run", {"run_id": asked["run_id"], "timeout": 20})
            assert (done["exit_status"], done["output"][-1]) == (0, "status 0")
        else:
            assert sent.is_error and sent.meta["error_code"] == "declined_by_user"
            still = await call(client, "wait_for_run", {"run_id": asked["run_id"], "timeout": 2})
            assert still["outcome"] == "waiting_for_input"  # nothing was typed
    assert secret not in wire.read_text()

"""tmux's client protocol: the messages, the fallbacks, and the same results as a fork."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from pathlib import Path

import anyio
import pytest
from muxport._internal import wire
from muxport._internal.transport import Transport
from muxport._internal.wiretransport import WireTransport, command_names


def test_command_packs_argc_then_nul_terminated_arguments() -> None:
    message = wire.command(["display-message", "-p", "a b;"])
    kind, length, flags, peerid, _pid = wire.HEADER.unpack_from(message)
    assert (kind, length, flags, peerid) == (wire.MSG_COMMAND, len(message), 0, 8)
    assert message[wire.HEADER.size :] == wire.INT.pack(3) + b"display-message\0-p\0a b;\0"


def test_a_command_over_one_message_is_refused() -> None:
    with pytest.raises(wire.TooLong):
        wire.command(["display-message", "x" * wire.MAX_IMSGSIZE])


def test_utf8_flag_follows_the_locale_as_tmux_decides_it() -> None:
    assert wire.client_flags({"LANG": "en_US.UTF-8"}) == wire.CLIENT_UTF8
    assert wire.client_flags({"LC_ALL": "C", "LANG": "en_US.UTF-8"}) == 0
    assert wire.client_flags({"LC_ALL": "", "LC_CTYPE": "C.utf8"}) == wire.CLIENT_UTF8
    assert wire.client_flags({"TMUX": "/x,1,0"}) == wire.CLIENT_UTF8
    assert wire.client_flags({}) == 0


def test_frames_split_across_reads_and_another_version_is_a_mismatch() -> None:
    frames = wire.Frames()
    message = wire.frame(wire.MSG_EXIT, wire.INT.pack(3))
    assert list(frames.feed(message[:5])) == []
    assert list(frames.feed(message[5:])) == [(wire.MSG_EXIT, wire.INT.pack(3))]
    with pytest.raises(wire.VersionMismatch):
        list(wire.Frames().feed(wire.HEADER.pack(wire.MSG_VERSION, 16, 0, 7, 1)))


def test_command_names_are_each_first_word_after_a_separator() -> None:
    assert command_names(["a", "-t", "x", ";", "b", ";", "c"]) == ["a", "b", "c"]


def fake_server(path: str, answer: bytes) -> threading.Thread:
    """A socket that reads one client's identify and command, then sends ``answer``."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            conn.settimeout(10)
            frames, seen = wire.Frames(), []
            while wire.MSG_COMMAND not in seen:
                chunk, _fds, _flags, _addr = socket.recv_fds(conn, 65536, 2)
                for fd in _fds:
                    os.close(fd)
                seen += [kind for kind, _data in frames.feed(chunk)]
            conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


async def test_another_protocol_version_switches_to_the_forked_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)
    path = str(tmp_path / "old.sock")
    thread = fake_server(path, wire.HEADER.pack(wire.MSG_VERSION, 16, 0, 7, 1))
    transport = WireTransport(path)
    with anyio.fail_after(10):
        assert await transport.run(["list-sessions"]) is None
    assert transport.speaks is False  # for good: later commands fork at once
    await anyio.to_thread.run_sync(thread.join, 10)
    transport.close()


async def test_forced_fork_and_no_server_both_go_to_the_forked_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)
    assert await WireTransport(str(tmp_path / "none.sock")).run(["list-sessions"]) is None
    monkeypatch.setenv("MUXPORT_TRANSPORT", "fork")
    assert WireTransport(str(tmp_path / "none.sock")).enabled is False


async def test_wire_and_fork_answer_alike(tmux_server, shell_pane, monkeypatch) -> None:
    pane = shell_pane("dash")
    tmux_server.cmd("set-buffer", "-b", "mx-buf", "one # two é")
    monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)
    wired = Transport(tmux_server.binary, tmux_server.socket_path)
    monkeypatch.setenv("MUXPORT_TRANSPORT", "fork")
    forked = Transport(tmux_server.binary, tmux_server.socket_path)
    assert wired.wire.enabled and not forked.wire.enabled
    invocations = [
        (("display-message", "-p", "-t", pane.pane_id, "#{pane_id} é;"),),
        (("list-sessions", "-F", "#{session_id}"), ("display-message", "-p", "x y")),
        (("show-buffer", "-b", "mx-buf"),),
        (("save-buffer", "-b", "mx-buf", "-"),),  # file commands go to the fork
        (("show-buffer", "-b", "mx-none"),),  # an error: status 1 and stderr
        (("display-message", "-t", "%999", "-p", "x"),),
        (("no-such-command",),),
    ]
    for commands in invocations:
        got = await wired.run(*commands, check=False)
        want = await forked.run(*commands, check=False)
        assert got == want, commands
    huge = ("display-message", "-p", "x" * 20000)
    assert (await wired.run(huge, check=False)) == (await forked.run(huge, check=False))
    await wired.aclose()
    await forked.aclose()


async def test_a_wire_wait_for_client_wakes_and_is_gone(tmux_server, monkeypatch) -> None:
    monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    client = await tmux.start_client("display-message", "-p", "armed", ";", "wait-for", "mx-w")
    assert client.pid == -1  # no process: a connection
    assert client.stdout is not None
    with anyio.fail_after(10):
        assert await client.stdout.receive() == b"armed\n"
        assert tmux_server.connections() == 1
        await anyio.to_thread.run_sync(
            lambda: subprocess.run(
                [tmux_server.binary, "-S", tmux_server.socket_path, "wait-for", "-S", "mx-w"],
                check=True, timeout=10,
            )
        )
        assert await client.wait() == 0
    await tmux.aclose()
    assert client.returncode == 0


def bound(path: str) -> bool:
    return os.path.exists(path)


async def test_a_forked_long_lived_client_starts_no_server(tmux_server, monkeypatch) -> None:
    """attach-session starts a server where none answers: a long-lived client forked while
    the socket is away (the socket client cannot connect) must not make a second server at
    the path (docs/reliability.md, "A moved socket is not a dead server")."""
    monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    socket_path = tmux_server.socket_path
    os.rename(socket_path, socket_path + ".moved")
    try:
        client = await tmux.start_client("attach-session", "-t", "mx-none")
        with anyio.fail_after(10):
            assert await client.wait() != 0
        assert not bound(socket_path)  # no server bound there
    finally:
        if bound(socket_path):  # the failure's second server: ended, not left behind
            tmux_server.cmd("kill-server", check=False)
        os.rename(socket_path + ".moved", socket_path)
        await tmux.aclose()
    assert tmux_server.cmd("display-message", "-p", "#{pid}").strip()

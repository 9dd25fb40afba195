"""Control mode over the socket, and the two imsg headers (docs/transport.md): the flags
reach tmux in one read with IDENTIFY_DONE (the pre-3.7 crash cannot happen), a command
client passes no descriptor, and a real server of any version serves a control client."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import anyio
import pytest
from muxport._internal import wire
from muxport._internal.wireclient import WireClient
from muxport._internal.wirecontrol import ControlClient
from muxport._internal.wiretransport import WireTransport

pytestmark = pytest.mark.timeout(60)


def test_a_descriptor_is_marked_in_either_header() -> None:
    old = wire.frame(wire.IDENTIFY_STDIN, fd=wire.FdHeader.FLAGS)
    assert wire.HEADER.unpack_from(old)[:4] == (wire.IDENTIFY_STDIN, 16, wire.IMSGF_HASFD, 8)
    new = wire.frame(wire.IDENTIFY_STDIN, fd=wire.FdHeader.MARK)
    assert wire.HEADER32.unpack_from(new)[:3] == (wire.IDENTIFY_STDIN, 16 | wire.FD_MARK, 8)
    plain = wire.frame(wire.IDENTIFY_DONE)
    assert wire.HEADER.unpack_from(plain)[:4] == (*wire.HEADER32.unpack_from(plain)[:2], 0, 8)


def recording_server(path: str) -> tuple[threading.Thread, list[tuple[list[int], int]]]:
    """A socket that records, per read, the message types and the descriptors it got,
    until IDENTIFY_DONE; then it closes."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(1)
    reads: list[tuple[list[int], int]] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            conn.settimeout(10)
            frames = wire.Frames()
            while not any(wire.IDENTIFY_DONE in kinds for kinds, _ in reads):
                # one descriptor per read, as tmux's imsg reads (compat/imsg-buffer.c)
                chunk, fds, _flags, _addr = socket.recv_fds(conn, 65536, 1)
                for fd in fds:
                    os.close(fd)
                if not chunk:
                    return
                reads.append(([kind for kind, _ in frames.feed(chunk)], len(fds)))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread, reads


async def test_a_control_client_sends_its_flags_in_the_read_that_ends_identify(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "rec.sock")
    thread, reads = recording_server(path)
    with anyio.fail_after(10):
        client = await ControlClient.start(path, ["attach-session"], wire.FdHeader.FLAGS)
        await anyio.to_thread.run_sync(thread.join, 10)
    await client.aclose()
    flagged = [kinds for kinds, _ in reads if wire.IDENTIFY_FLAGS in kinds]
    assert len(flagged) == 1
    assert wire.IDENTIFY_LONGFLAGS in flagged[0] and wire.IDENTIFY_DONE in flagged[0]
    assert sum(fds for _, fds in reads) == 2  # stdin and stdout, both read before the flags
    assert reads.index((flagged[0], 0)) > max(i for i, (_, fds) in enumerate(reads) if fds)


async def test_a_command_client_passes_no_descriptor(tmp_path: Path) -> None:
    path = str(tmp_path / "rec.sock")
    thread, reads = recording_server(path)
    with anyio.fail_after(10):
        client = await WireClient.connect(path)
        await client.identify(0, wire.command(["list-sessions"]))
        await anyio.to_thread.run_sync(thread.join, 10)
    await client.aclose()
    assert sum(fds for _, fds in reads) == 0
    assert any(wire.IDENTIFY_FLAGS in kinds and wire.IDENTIFY_DONE in kinds for kinds, _ in reads)


async def test_a_control_client_over_the_socket_attaches_hears_output_and_leaves(
    tmux_server, shell_pane, monkeypatch
) -> None:
    monkeypatch.delenv("MUXPORT_TRANSPORT", raising=False)
    pane = shell_pane("dash")
    session = tmux_server.cmd("display-message", "-p", "-t", pane.pane_id, "#{session_id}")
    transport = WireTransport(tmux_server.socket_path)
    with anyio.fail_after(20):
        assert await transport.probe_fd_header() in set(wire.FdHeader)
        client = await transport.start_control(
            ["attach-session", "-E", "-t", session.strip(), "-f", "read-only,ignore-size"]
        )
        assert isinstance(client, ControlClient)
        seen = b""
        while b"%session-changed" not in seen:
            seen += await client.stdout.receive()
        flags = tmux_server.cmd("list-clients", "-F", "#{client_flags}")
        assert "control-mode" in flags and "read-only" in flags
        pane.type("echo mx-heard")
        while b"mx-heard" not in seen:
            seen += await client.stdout.receive()
        await client.stdin.aclose()  # tmux detaches the client
        assert await client.wait() == 0
    await client.aclose()
    transport.close()
    assert tmux_server.cmd("list-clients") == ""

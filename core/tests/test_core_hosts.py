"""The host a transport is given (docs/transport.md, "Hosts"): this machine by default,
and a kind written outside the core (``host_kit.WrappedHost``, a fixture standing for a
container) plugs in without editing the transport, the long-lived clients or the caller
check."""

from __future__ import annotations

import pytest
from host_kit import WRAPPER, WrappedHost
from muxport._internal.caller import detect
from muxport._internal.connection import Connection
from muxport._internal.transport import Transport

pytestmark = pytest.mark.timeout(60)


async def test_this_machine_is_the_default_host(tmux_server) -> None:
    tmux = Transport(tmux_server.binary, tmux_server.socket_path)
    try:
        assert (tmux.host.kind, tmux.host.local, tmux.host.report()) == ("local", True, {})
        assert tmux.forked(["tmux", "-V"]) == ["tmux", "-V"]
        assert tmux.liveness.local and tmux.wire.socket_path == tmux_server.socket_path
    finally:
        await tmux.aclose()


async def test_a_new_host_kind_plugs_in_without_editing_the_transport(
    tmux_server, shell_pane
) -> None:
    pane = shell_pane("dash")
    host = WrappedHost("box-1")
    tmux = Transport(tmux_server.binary, tmux_server.socket_path, host)
    try:
        assert not tmux.wire.enabled and not tmux.liveness.local  # what the host said
        found = await tmux.run(("display-message", "-p", "-t", pane.pane_id, "#{pane_id}"))
        assert found.stdout.strip() == pane.pane_id
        assert host.wrapped and all(argv[:2] == list(WRAPPER) for argv in host.wrapped)
        assert host.wrapped[-1][2] == tmux_server.binary
        # a long-lived client (a wait-for waiter) is forked through it and adopted
        waiter = await tmux.start_waiter("muxport-host-kind")
        assert host.adopted == [waiter] and waiter.returncode is None
        await tmux.wake_waiter("muxport-host-kind", waiter)
        assert waiter.returncode == 0
        # the caller check never reads this machine's /proc for the host's pids
        caller = await detect(tmux, {"TMUX": f"{tmux_server.socket_path},1,0",
                                     "TMUX_PANE": pane.pane_id})
        assert (caller.relation, caller.how) == ("outside",
                                                 "the served server is on box-1 (wrapped)")
        conn = Connection("socket_path", "flags", tmux.socket_path, "existing", "", "", tmux)
        assert conn.report()["host"] == "box-1"
        assert conn.attach_command.startswith("env MUXPORT_WRAPPED_HOST=1 ")
    finally:
        await tmux.aclose()
    assert host.closed


def test_the_ssh_host_is_not_local() -> None:
    from muxport._internal.sshhost import SshHost

    host = SshHost("deploy@far.example")
    assert (host.kind, host.local, host.name) == ("ssh", False, "deploy@far.example")
    assert host.wire_socket("/far/sock") == host.forward_path != "/far/sock"
    assert host.attach("tmux attach") == "ssh -t deploy@far.example tmux attach"

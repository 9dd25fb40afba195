"""Where the served tmux server runs, and how this process reaches it: the ``Host`` a
``Transport`` takes (docs/transport.md, "Hosts").

``Host`` itself is this machine. Another kind (``sshhost.SshHost``; a container reached
by ``docker exec``, say) subclasses it in one module and overrides what differs:

- how a tmux command reaches the server: ``wire_socket`` (the socket tmux's client
  protocol is spoken on, or None: forked clients only) and ``command`` (the argv of a
  forked client), with ``own_output`` and ``adopt`` (a forked client's output as tmux's);
- whether the connection still stands: ``ensure``, ``alive``, ``check``, ``lost``,
  ``restart``, ``close``;
- whether the server's processes, terminals and files are this machine's (``local``):
  the liveness of the server's process and socket file, the caller's relation and a
  toolset's looks at a pane's process go through this machine's ``/proc`` only then,
  and through tmux on the server's host otherwise (execute's host/far_input.py);
- what it says of itself (``kind``, ``name``, ``report``, ``attach``).

Private files of this process live on this machine in ``PrivateDirs`` (privatedirs.py),
whatever the host: an ssh master's control socket, a local run's output.
"""

from __future__ import annotations

from collections.abc import Sequence

from anyio.abc import Process

from muxport._internal.errors import ToolError
from muxport._internal.invoke import Finished


class HostLost(ToolError):
    """The connection to the served server's host is gone (a host kind's own error)."""

    code = "host_connection_lost"
    retryable = True


class Host:
    """This machine: tmux is run here, its socket is here, its panes' processes too."""

    kind = "local"  # what reaches it: "local", "ssh"
    local = True  # the server's pids, terminals, socket and paths are this machine's
    forwarded = False  # the wire socket is forwarded: no descriptor crosses it
    connections = 0  # connections made so far (a host that reconnects counts them)
    known_version = ""  # the far tmux's ``tmux -V``, when learnt while connecting

    @property
    def name(self) -> str:
        """The host as messages name it (an ssh destination)."""
        return "this machine"

    def wire_socket(self, socket_path: str) -> str | None:
        """Where tmux's client protocol reaches the server at ``socket_path`` (None: no
        socket reaches it from here; every command is a forked client)."""
        return socket_path

    def command(self, argv: Sequence[str]) -> list[str]:
        """The argv that runs the tmux client ``argv`` where the server is."""
        return list(argv)

    def own_output(self, done: Finished) -> Finished:
        """A forked client's result as the tmux client printed it (without what a far
        login printed first)."""
        return done

    async def adopt(self, process: Process) -> Process:
        """A long-lived forked client whose output is tmux's own (``FarClient``)."""
        return process

    async def ensure(self) -> None:
        """Before every invocation: connect again if the connection was lost."""

    def alive(self) -> bool:
        """The connection stands (a forked client would otherwise connect on its own)."""
        return True

    def check(self, returncode: int, stderr: str) -> None:
        """Raise the host's error a failed invocation means (the connection, not tmux)."""

    def lost(self, sent: bool = True) -> ToolError:
        """The error of a call whose connection went away (``sent``: after the command
        may have reached the server)."""
        return HostLost(f"the connection to {self.name} was lost; call again",
                        delivery="possibly_sent" if sent else "not_sent")

    async def restart(self, seen: int) -> None:
        """Connect again in place of connection number ``seen``, whose socket refused."""

    def report(self) -> dict[str, str]:
        """Its fields of ``tmux://capabilities`` and ``muxport doctor`` (none here)."""
        return {}

    def attach(self, command: str) -> str:
        """The command line that runs ``command`` (a ``tmux attach``) where the server is."""
        return command

    async def close(self) -> None:
        """End the connection and remove what it kept (at shutdown)."""

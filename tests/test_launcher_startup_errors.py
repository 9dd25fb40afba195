"""Every startup error (docs/architecture.md) exits non-zero with ONE clear line on stderr and never
contacts tmux: the tmux binary is a wrapper that records each invocation, and the socket
named is one whose server is absent (it must stay absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from muxport._internal.errors import StartupError
from muxport._internal.selection import SelectionRequest, check_names

CASES = [
    ({"LIBTMUX_TOOLSETS": "inspect,"}, [], "LIBTMUX_TOOLSETS has an empty name"),
    ({"LIBTMUX_TOOLSETS": "inspect,,manage"}, [], "LIBTMUX_TOOLSETS has an empty name"),
    ({"LIBTMUX_TOOLS": ",list_sessions"}, [], "LIBTMUX_TOOLS has an empty name"),
    ({"LIBTMUX_EXCLUDE_TOOLS": "list_panes, "}, [], "LIBTMUX_EXCLUDE_TOOLS has an empty name"),
    ({}, ["--toolsets", "inspect,"], "--toolsets has an empty name"),
    ({}, ["--toolsets", "nosuch"], "toolset nosuch is not installed"),
    ({"LIBTMUX_TOOLSETS": "inspect,nosuch"}, [], "toolset nosuch is not installed"),
    ({"LIBTMUX_TOOLS": "no_such_tool"}, [], "unknown tool no_such_tool"),
    ({"LIBTMUX_EXCLUDE_TOOLS": "no_such_tool"}, [], "unknown tool no_such_tool"),
    ({}, ["--tool", "list_sessions", "--tool", "nope"], "unknown tool nope"),
    ({}, ["--socket-name", "other"], "--socket and --socket-name are mutually exclusive"),
    ({"LIBTMUX_SOCKET": "other"}, ["--socket-name", "x", "--socket", "/tmp/x.sock"],
     "--socket and --socket-name are mutually exclusive"),
]
# which names the message must list so the user can fix the mistake
LISTS = {"not installed": "inspect", "unknown tool": "list_sessions"}


@pytest.mark.parametrize(("env", "args", "message"), CASES,
                         ids=[f"case{n}" for n in range(len(CASES))])
def test_startup_error_is_one_line_and_touches_no_tmux(
    muxport_cli, recording_tmux, tmp_path, env, args, message
):
    socket = tmp_path / "absent.sock"
    full_env = {"LIBTMUX_TMUX_BIN": recording_tmux.path, **env}
    if "--socket-name" not in args:
        full_env["LIBTMUX_SOCKET_PATH"] = str(socket)
    if "--socket" not in args and "--socket-name" in args:
        args = [*args, "--socket", str(socket)]
    done = muxport_cli(*args, env=full_env)
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("muxport: ")
    assert message in lines[0]
    for key, valid in LISTS.items():
        if key in message:
            assert valid in lines[0], "the message lists the valid names"
    assert recording_tmux.calls() == []
    assert not socket.exists()


def test_both_socket_variables_are_refused(muxport_cli, recording_tmux, tmp_path):
    socket = tmp_path / "absent.sock"
    done = muxport_cli(env={"LIBTMUX_TMUX_BIN": recording_tmux.path,
                            "LIBTMUX_SOCKET_PATH": str(socket), "LIBTMUX_SOCKET": "other"})
    assert done.returncode != 0
    assert done.stderr.splitlines() == [
        "muxport: LIBTMUX_SOCKET_PATH and LIBTMUX_SOCKET are mutually exclusive; unset one"]
    assert recording_tmux.calls() == []
    assert not socket.exists()


def test_control_characters_in_socket_path_are_refused(muxport_cli, recording_tmux, tmp_path):
    done = muxport_cli(env={"LIBTMUX_TMUX_BIN": recording_tmux.path,
                            "LIBTMUX_SOCKET_PATH": str(tmp_path / "a\x1bb.sock")})
    assert done.returncode != 0
    assert len(done.stderr.splitlines()) == 1
    assert "control character" in done.stderr
    assert recording_tmux.calls() == []


INSTALLED = {"inspect": ["list_sessions", "list_panes"], "manage": ["create_session"]}


@pytest.mark.parametrize("missing", ["execute", "teardown"])
def test_selected_first_party_toolset_not_installed_names_the_distribution(missing):
    request = SelectionRequest(("inspect", missing), (), (), "environment")
    with pytest.raises(StartupError) as caught:
        check_names(request, INSTALLED, {})
    message = str(caught.value)
    assert f"toolset {missing} is not installed" in message
    assert f"pip install muxport-{missing}" in message
    assert "installed: inspect, manage" in message
    assert "\n" not in message


def test_unknown_third_party_toolset_lists_the_installed_ones():
    request = SelectionRequest(("nosuch",), (), (), "flags")
    with pytest.raises(StartupError) as caught:
        check_names(request, INSTALLED, {})
    assert "pip install" not in str(caught.value)
    assert "installed: inspect, manage" in str(caught.value)


BROKEN_PLUGIN = "raise ImportError('the broken plugin cannot import its dependency')\n"


def test_a_broken_plugin_fails_startup_only_when_selected(
    muxport_cli, recording_tmux, fake_distribution, tmp_path
):
    site = fake_distribution("broken", BROKEN_PLUGIN)
    env = {"PYTHONPATH": str(site), "LIBTMUX_TMUX_BIN": recording_tmux.path,
           "LIBTMUX_SOCKET_PATH": str(tmp_path / "absent.sock")}
    selected = muxport_cli(env={**env, "LIBTMUX_TOOLSETS": "broken"})
    assert selected.returncode != 0
    (line,) = selected.stderr.splitlines()
    assert "toolset broken failed to load" in line
    assert "distribution broken" in line
    assert "cannot import its dependency" in line
    assert recording_tmux.calls() == []
    # not selected: the surface is printed, the broken toolset is reported
    listed = muxport_cli("tools", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "broken" in listed.stdout
    assert Path(tmp_path / "absent.sock").exists() is False


FAILING_START_PLUGIN = '''
from muxport import Args, Capability, Result, ToolContext, Toolbox, hookimpl, tool


class Keys(Toolbox):
    async def start(self, tmux):
        raise RuntimeError("the key file /nonexistent/key is missing")

    @tool(Capability.READ.replace(may_expose_secrets=False, may_return_untrusted_content=False),
          title="Key")
    async def show_key(self, ctx: ToolContext, args: Args) -> Result:
        """Show the key."""
        return Result()


@hookimpl
def register_tools(registry):
    registry.add(Keys)
'''


def test_a_toolbox_whose_start_fails_stops_startup_without_a_traceback(
    muxport_cli, fake_distribution, tmux_server
):
    site = fake_distribution("badstart", FAILING_START_PLUGIN)
    env = {"PYTHONPATH": str(site), "LIBTMUX_SOCKET_PATH": tmux_server.socket_path}
    done = muxport_cli(env={**env, "LIBTMUX_TOOLSETS": "badstart"})
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("muxport: toolset badstart could not start")
    assert "Keys: RuntimeError: the key file /nonexistent/key is missing" in line
    assert tmux_server.clients() == []
    # not selected, its toolbox is never made: serving starts, and ends cleanly at EOF
    served = muxport_cli(env={**env, "LIBTMUX_TOOLSETS": "inspect,badstart",
                              "LIBTMUX_EXCLUDE_TOOLS": "show_key"})
    assert served.returncode == 0, served.stderr

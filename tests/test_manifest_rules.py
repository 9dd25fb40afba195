"""A toolset whose capability row breaks a rule (docs/plugin-contract.md) stops startup,
naming the plugin and the rule: in process (``muxport._internal.app``), and through the
installed launcher for a third-party toolset found through its entry point."""

from __future__ import annotations

import types

import pytest
from muxport import Args, Capability, ToolContext, ToolRegistry, hookimpl, tool
from muxport._internal.app import preflight, start
from muxport._internal.connection import settings_from
from muxport._internal.errors import StartupError
from muxport._internal.selection import SelectionRequest
from pydantic import Field

from tests.manifest_kit import CHANGED, QUIET, NoArgs, Nothing


def plugin_module(name: str, register) -> types.ModuleType:
    module = types.ModuleType(name)
    module.register_tools = hookimpl(register)  # type: ignore[attr-defined]
    return module


@tool(Capability.INPUT.replace(kind="read", tmux_effects=["observe"],
                              output_classes=["terminal-content"], may_expose_secrets=True,
                              may_return_untrusted_content=True), title="Sneaky")
async def sneaky_read(ctx: ToolContext, args: NoArgs) -> Nothing:
    """Read a pane while typing into it (a read that reaches input breaks the read rule)."""
    return Nothing()


def add_sneaky(registry: ToolRegistry) -> None:
    registry.add(sneaky_read)


INSPECT = SelectionRequest(("inspect",), (), (), "flags")
DEFAULT = SelectionRequest(None, (), (), "default")
THIRD = SelectionRequest(("thirdparty",), (), (), "flags")


@pytest.mark.parametrize(
    ("request_", "toolset"), [(INSPECT, "inspect"), (DEFAULT, "inspect"), (THIRD, "thirdparty")],
    ids=["inspect", "default", "third-party"],
)
def test_preflight_refuses_a_read_with_input_reach_in_any_toolset(request_, toolset):
    with pytest.raises(StartupError) as caught:
        # an in-process plugin named "inspect" stands in for the first-party one (test kit):
        # the rule follows the declared kind, and the toolset's name changes nothing
        preflight(request_, {toolset: plugin_module("sneaky", add_sneaky)})
    message = str(caught.value)
    assert message.startswith(f"plugin {toolset}: tool sneaky_read breaks a rule:")
    assert "read tools have reach none and effects exactly [observe]" in message


async def test_start_refuses_before_tmux_is_touched(tmp_path):
    socket = tmp_path / "absent.sock"
    settings = settings_from({}, str(socket), None, "/nonexistent/tmux-binary")
    with pytest.raises(StartupError, match=r"plugin inspect: .*read tools have reach none"):
        await start(INSPECT, settings, env={},
                    extra={"inspect": plugin_module("sneaky", add_sneaky)})
    assert not socket.exists()


def test_an_unselected_rule_breaker_does_not_stop_startup():
    toolsets = preflight(INSPECT, {"elsewhere": plugin_module("elsewhere", add_sneaky)})
    assert "sneaky_read" in toolsets.names()["elsewhere"]


@tool(QUIET, title="Dup", name="list_sessions")
async def shadow_list_sessions(ctx: ToolContext, args: NoArgs) -> Nothing:
    """List sessions again (a second registration of an existing name)."""
    return Nothing()


def test_two_plugins_registering_one_name_stop_startup():
    def register(registry: ToolRegistry) -> None:
        registry.add(shadow_list_sessions)

    with pytest.raises(StartupError, match="tool list_sessions is already registered by plugin"):
        preflight(INSPECT, {"shadow": plugin_module("shadow", register)})


@pytest.mark.parametrize(
    ("declaration", "toolset", "rule"),
    [
        (CHANGED.replace(tmux_effects=[]), "x", "effects are a non-empty, ordered subset"),
        (CHANGED.replace(tmux_effects=["change", "observe"]), "x",
         "effects are a non-empty, ordered subset"),
        (CHANGED.replace(output_classes=[]), "x", "at least one output class"),
        (CHANGED.replace(process_reach="pane-input"), "manage", "change tools have reach none"),
        (CHANGED.replace(kind="execute"), "execute", "execute tools have a reach other than none"),
        (CHANGED.replace(kind="delete"), "teardown", "delete tools include the delete effect"),
        (CHANGED.replace(kind="bogus"), "x", "kind is one of read, change, execute, delete"),
        (CHANGED.replace(read_only=True), "x", "only a read tool may declare read_only"),
        (QUIET.replace(amplifies_future_input=True), "x", "amplifies future input changes tmux"),
        (CHANGED.replace(process_reach="host-command"), "x", "host-command is forbidden"),
    ],
    ids=["no-effects", "unordered-effects", "no-outputs", "change-reach", "execute-reach",
         "delete-effect", "unknown-kind", "read-only-change", "amplifying-read", "host-command"],
)
def test_each_row_rule_names_plugin_and_rule(declaration, toolset, rule):
    @tool(declaration, title="Bad")
    async def bad_tool(ctx: ToolContext, args: NoArgs) -> Nothing:
        """Break one rule."""
        return Nothing()

    def register(registry: ToolRegistry) -> None:
        registry.add(bad_tool)

    request = SelectionRequest((toolset,), (), (), "flags")
    with pytest.raises(StartupError) as caught:
        preflight(request, {toolset: plugin_module("badplugin", register)})
    assert str(caught.value).startswith(f"plugin {toolset}: tool bad_tool breaks a rule:")
    assert rule in str(caught.value)


class SocketArgs(Args):
    socket_path: str | None = None


def test_a_socket_selector_in_a_schema_is_refused():
    @tool(QUIET, title="Bad")
    async def pick_socket(ctx: ToolContext, args: SocketArgs) -> Nothing:
        """Choose a server (forbidden)."""
        return Nothing()

    def register(registry: ToolRegistry) -> None:
        registry.add(pick_socket)

    request = SelectionRequest(("sock",), (), (), "flags")
    with pytest.raises(StartupError, match=r"plugin sock: .*no input schema offers a socket"):
        preflight(request, {"sock": plugin_module("sock", register)})


BADROW_PLUGIN = '''
from muxport import Args, Capability, Result, ToolContext, hookimpl, tool


class NoArgs(Args):
    pass


class Ran(Result):
    pass


@tool(Capability.CHANGE.replace(process_reach="host-command", tmux_effects=["change"]),
      title="Run on host")
async def run_on_host(ctx: ToolContext, args: NoArgs) -> Ran:
    """Run something on the host (forbidden reach)."""
    return Ran()


@hookimpl
def register_tools(registry):
    registry.add(run_on_host)
'''


def test_launcher_refuses_a_third_party_rule_breaker(
    muxport_cli, fake_distribution, recording_tmux, tmp_path
):
    site = fake_distribution("badrow", BADROW_PLUGIN)
    socket = tmp_path / "absent.sock"
    env = {"PYTHONPATH": str(site), "LIBTMUX_TMUX_BIN": recording_tmux.path,
           "LIBTMUX_SOCKET_PATH": str(socket)}
    done = muxport_cli(env={**env, "LIBTMUX_TOOLSETS": "badrow"})
    assert done.returncode != 0
    (line,) = done.stderr.splitlines()
    assert line == ("muxport: plugin badrow: tool run_on_host breaks a rule: "
                    "reach host-command is forbidden")
    assert recording_tmux.calls() == []
    assert not socket.exists()
    # found through its entry point, but never on by default: startup is not stopped
    listed = muxport_cli("tools", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "run_on_host" not in listed.stdout


class LooseArgs(Args):
    word: str = Field(pattern=r"[a-z]+")


@tool(Capability.READ, title="Loose")
async def loose_read(ctx: ToolContext, args: LooseArgs) -> Nothing:
    """Read with an argument pattern a client validator would search, not match."""
    return Nothing()


def test_preflight_refuses_an_unanchored_pattern():
    def add(registry: ToolRegistry) -> None:
        registry.add(loose_read)

    with pytest.raises(StartupError, match=r"tool loose_read breaks a rule: .*\^\.\.\.\$ patterns"):
        preflight(SelectionRequest(("loose",), (), (), "flags"),
                  {"loose": plugin_module("loose", add)})


def test_a_plugin_cannot_put_tools_into_another_toolset():
    registry = ToolRegistry(toolset="thirdparty", plugin="thirdparty")
    with pytest.raises(TypeError):
        registry.add(sneaky_read, toolset="inspect")  # type: ignore[call-arg]
    registry.add(sneaky_read)
    assert [spec.toolset for spec in registry.tools] == ["thirdparty"]


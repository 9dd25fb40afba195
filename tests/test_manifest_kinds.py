"""Rules and annotations follow the kind a tool declares, never its toolset's name: a
third-party toolset gets what a first-party one gets (docs/plugin-contract.md, "Kinds")."""

from __future__ import annotations

import ast
from pathlib import Path

import muxport._internal as internal
import pytest
from muxport import Capability, ToolContext, ToolRegistry, tool
from muxport._internal.capabilities import hints
from muxport._internal.errors import StartupError
from muxport._internal.registry import validate_manifest

from tests.manifest_kit import CHANGED, QUIET, NoArgs, Nothing

pytestmark = pytest.mark.timeout(30)




@tool(CHANGED.replace(amplifies_future_input=True, idempotent=True), title="Mirror input")
async def mirror_input(ctx: ToolContext, args: NoArgs) -> Nothing:
    """Make later keys reach more panes (a third-party set_synchronize_panes)."""
    return Nothing()


@tool(Capability.READ.replace(read_only=False), title="Collect")
async def collect_later(ctx: ToolContext, args: NoArgs) -> Nothing:
    """Collect what an earlier call started (a third-party wait_for_run)."""
    return Nothing()


def test_a_third_party_toolset_gets_what_a_first_party_one_gets():
    """Rules and annotations follow what a tool declares: the same declarations pass, and
    annotate alike, in a toolset named like a first-party one and in a third-party one."""
    seen = {}
    for toolset in ("execute", "thirdparty"):
        registry = ToolRegistry(toolset, toolset)
        registry.add(mirror_input, collect_later)
        validate_manifest(registry.tools)
        seen[toolset] = {spec.name: hints(spec) for spec in registry.tools}
    assert seen["execute"] == seen["thirdparty"]
    assert seen["thirdparty"]["mirror_input"]["destructiveHint"] is True  # amplifies
    assert seen["thirdparty"]["collect_later"] == {
        "readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
        "openWorldHint": False,
    }


@tool(QUIET, title="Batch", nested_authority=["mirror_input"])
async def read_batch(ctx: ToolContext, args: NoArgs) -> Nothing:
    """Run several reads in one call (but it nests a change)."""
    return Nothing()


def test_a_read_tool_nests_only_read_tools():
    registry = ToolRegistry("thirdparty", "thirdparty")
    registry.add(read_batch, mirror_input)
    with pytest.raises(StartupError, match="a read tool's nested authority names only read"):
        validate_manifest(registry.tools)



def literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(literal(item) for item in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def a_name(node: ast.expr) -> bool:
    """``x.toolset``, ``x.plugin`` or ``spec.name``."""
    if not isinstance(node, ast.Attribute):
        return False
    spec_name = node.attr == "name" and isinstance(node.value, ast.Name) and node.value.id == "spec"
    return node.attr in ("toolset", "plugin") or spec_name


def test_the_core_compares_no_toolset_or_tool_name_with_a_literal() -> None:
    """No ``spec.toolset == "inspect"``, no ``spec.name in ("wait_for_run", ...)``: names
    never decide what a tool may do (resources and messages may still name tools)."""
    found = [
        f"{path.name}:{node.lineno}"
        for path in sorted(Path(internal.__file__).parent.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Compare)
        and any(map(a_name, [node.left, *node.comparators]))
        and any(map(literal, [node.left, *node.comparators]))
    ]
    assert found == []

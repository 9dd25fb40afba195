"""The execute toolset's layout, read from its source (docs/architecture.md, "Execute"):
one owner of a run's life cycle, rooms that import downwards only, small modules."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from muxport_execute.run.table import Run

pytestmark = pytest.mark.timeout(30)

PACKAGE = Path(__file__).parents[1] / "src" / "muxport_execute"
DRIVER = PACKAGE / "run" / "driver.py"
# A room imports only from the rooms below it (and the package's own top-level modules
# that import no room: notes, naming).
FLOORS = {"host": 0, "pane": 1, "frames": 2, "run": 3}
MAX_LINES = 250


def modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(("muxport_execute", *path.relative_to(PACKAGE).with_suffix("").parts))
        found[name.removesuffix(".__init__")] = ast.parse(path.read_text(), str(path))
    return found


def imports(tree: ast.Module) -> set[str]:
    """Every execute module ``tree`` imports, TYPE_CHECKING imports included."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("muxport_execute"):
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                found.add(whole if whole in modules_by_name else node.module or "")
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("muxport_execute")}
    return found


modules_by_name = modules()


def test_only_the_driver_moves_a_run_or_sets_its_fields() -> None:
    run_fields = {f.name for f in dataclasses.fields(Run)}
    transitions = {"_move", "_fix", "_dispatch", "_apply", "_end"}
    for name, tree in modules_by_name.items():
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                parts = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
                for part in parts:
                    if not (isinstance(part, ast.Attribute) and part.attr in run_fields):
                        continue
                    on_self = isinstance(part.value, ast.Name) and part.value.id == "self"
                    if name.endswith("run.table"):
                        raise AssertionError(f"{name}: a Run assigns its own {part.attr}")
                    if not on_self and name != "muxport_execute.run.driver":
                        raise AssertionError(f"{name}:{part.lineno} assigns .{part.attr}")
            if isinstance(node, ast.Name | ast.Attribute) and name != "muxport_execute.run.driver":
                word = node.id if isinstance(node, ast.Name) else node.attr
                assert word not in transitions, f"{name}:{node.lineno} uses {word}"


def test_no_import_circle_and_rooms_import_downwards() -> None:
    graph = {name: imports(tree) for name, tree in modules_by_name.items()}

    def floor(name: str) -> int | None:
        parts = name.split(".")
        return FLOORS.get(parts[1]) if len(parts) > 2 else None

    for name, targets in graph.items():
        for target in targets:
            low, high = floor(target), floor(name)
            if high is not None and low is not None:
                assert low <= high, f"{name} imports {target}, a room above it"
            if high is not None and low is None and target != "muxport_execute":
                assert not (graph.get(target, set()) - {"muxport_execute"}) or all(
                    floor(t) is None for t in graph[target]
                ), f"{name} imports {target}, which imports a room"
    visiting: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        assert name not in visiting, "import circle: " + " -> ".join([*visiting, name])
        if name in done:
            return
        visiting.append(name)
        for target in graph.get(name, ()):
            if target in graph and target != name.rsplit(".", 1)[0]:
                visit(target)
        visiting.pop()
        done.add(name)

    for name in graph:
        visit(name)


def test_every_module_is_small() -> None:
    for path in PACKAGE.rglob("*.py"):
        count = len(path.read_text().splitlines())
        assert count <= MAX_LINES, f"{path.relative_to(PACKAGE)} has {count} lines"

"""The toolkit stays small and every name in it earns its place (issue 31): the public
modules hold at most 40 names, each documented in docs/plugin-contract.md with its
signature and an example (as datasette documents each hook), and each used by a toolset,
an example or the test kit."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(30)

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "docs" / "plugin-contract.md"
MODULES = ("muxport", "muxport.formats", "muxport.policy")
LIMIT = 40
HEADING = re.compile(r"^### `([\w.]+)`$")
CELL = re.compile(r"(?<!\\)\|")  # a cell ends at a bar that is not escaped


def public_names() -> dict[str, str]:
    """Each public name -> its module."""
    return {name: module for module in MODULES for name in importlib.import_module(module).__all__}


def rows(contract: Path = CONTRACT) -> dict[str, dict[str, list[str]]]:
    """Each ``### `module` `` heading -> name -> the cells after the name in its table."""
    tables: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for line in contract.read_text().splitlines():
        heading = HEADING.match(line)
        if heading:
            current = tables.setdefault(heading[1], {})
        elif line.startswith("#"):
            current = None
        elif current is not None and line.startswith("| `"):
            cells = [cell.strip() for cell in CELL.split(line.strip())[1:-1]]
            current[cells[0].strip("`")] = cells[1:]
    return tables


def users(paths: Iterable[Path]) -> set[tuple[str, str]]:
    """(module, name) of every public name imported or used as ``module.name``."""
    aliases = {"muxport": "muxport", "formats": "muxport.formats", "policy": "muxport.policy"}
    found: set[tuple[str, str]] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module in MODULES and node.level == 0:
                found |= {(node.module, alias.name) for alias in node.names}
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id in aliases):
                found.add((aliases[node.value.id], node.attr))
    return found


def using_code() -> list[Path]:
    """Toolsets, examples and the test kit: the code a public name is for."""
    patterns = (
        "plugins/*/src/**/*.py", "examples/*/src/**/*.py", "core/src/muxport/testing/**/*.py"
    )
    return [path for pattern in patterns for path in ROOT.glob(pattern)]


def undocumented(names: dict[str, str], tables: dict[str, dict[str, list[str]]]) -> list[str]:
    """Names whose row lacks a signature or an example (row: name, signature, what, example)."""
    missing = []
    for name, module in sorted(names.items()):
        cells = tables.get(module, {}).get(name)
        if cells is None or len(cells) != 3 or not cells[0] or not cells[2]:
            missing.append(f"{module}.{name}")
    return missing


def unused(names: dict[str, str], used: set[tuple[str, str]]) -> list[str]:
    return sorted(f"{mod}.{name}" for name, mod in names.items() if (mod, name) not in used)


def test_the_toolkit_has_at_most_40_names() -> None:
    names = [name for module in MODULES for name in importlib.import_module(module).__all__]
    assert len(names) == len(set(names)), "one name in two public modules"
    assert len(names) <= LIMIT, sorted(names)


def test_every_public_name_has_a_signature_and_an_example() -> None:
    assert undocumented(public_names(), rows()) == []


def test_every_public_name_is_used_by_a_toolset_an_example_or_the_kit() -> None:
    assert unused(public_names(), users(using_code())) == []


def test_the_checks_catch_a_name_without_example_or_user(tmp_path: Path) -> None:
    contract = tmp_path / "contract.md"
    contract.write_text(
        "### `muxport`\n\n| name | signature | what | example |\n|---|---|---|---|\n"
        "| `tool` | `tool(c, *, title)` | a \\| b | `@tool(Capability.READ, title=\"x\")` |\n"
        "| `hookimpl` | `@hookimpl` | the marker |  |\n"
    )
    names = {"tool": "muxport", "hookimpl": "muxport", "Tmux": "muxport"}
    tables = rows(contract)
    assert tables["muxport"]["tool"][1] == "a \\| b"
    assert undocumented(names, tables) == ["muxport.Tmux", "muxport.hookimpl"]
    code = tmp_path / "toolset.py"
    code.write_text("import muxport\nfrom muxport import tool\n\nmuxport.hookimpl\n")
    assert unused(names, users([code])) == ["muxport.Tmux"]

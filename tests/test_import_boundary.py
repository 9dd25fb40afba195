"""Toolsets use only the public API: ``muxport`` and its public submodules
``muxport.formats`` and ``muxport.policy`` (each its ``__all__``), and in their tests
``muxport.testing`` too; never ``muxport._internal`` and never ``mcp``
(docs/plugin-contract.md)."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLSETS = sorted(p for pattern in ("plugins/*", "examples/*") for p in ROOT.glob(pattern))
CODE = ("muxport", "muxport.formats", "muxport.policy")
TESTS = (*CODE, "muxport.testing")


def imports(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """(line, module, names) of every import in ``path``; names is empty for ``import x``."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module, [alias.name for alias in node.names]


def violations(path: Path, allowed: tuple[str, ...]) -> Iterator[str]:
    for line, module, names in imports(path):
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{line}"
        root = module.split(".")[0]
        if root == "mcp":
            yield f"{where} imports {module}: toolsets never import mcp"
        elif root == "muxport" and module not in allowed:
            yield f"{where} imports {module}: import from {', '.join(allowed)}"
        elif root == "muxport":
            exported = importlib.import_module(module).__all__
            yield from (
                f"{where} imports {module}.{name}, which {module} does not export"
                for name in names
                if name not in exported
            )


def test_there_are_toolsets_to_check() -> None:
    assert {p.name for p in TOOLSETS} >= {"inspect", "manage", "execute", "teardown"}


@pytest.mark.parametrize("toolset", TOOLSETS, ids=[p.name for p in TOOLSETS])
def test_toolset_code_imports_only_the_public_api(toolset: Path) -> None:
    found = [v for path in toolset.glob("src/**/*.py") for v in violations(path, CODE)]
    assert found == []


@pytest.mark.parametrize("toolset", TOOLSETS, ids=[p.name for p in TOOLSETS])
def test_toolset_tests_import_only_the_public_api_and_the_kit(toolset: Path) -> None:
    found = [v for path in toolset.glob("tests/**/*.py") for v in violations(path, TESTS)]
    assert found == []


def test_the_check_catches_a_private_import(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text(
        "from muxport._internal.inputs import check_input\nimport mcp.types\n"
        "from muxport import Services, tool\nfrom muxport.formats import check_input\n"
        "from muxport.policy import check_input\nfrom muxport.testing import tool_context\n"
    )
    assert list(violations(bad, CODE)) == [
        "probe.py:1 imports muxport._internal.inputs: import from muxport, muxport.formats, "
        "muxport.policy",
        "probe.py:2 imports mcp.types: toolsets never import mcp",
        "probe.py:3 imports muxport.Services, which muxport does not export",
        "probe.py:4 imports muxport.formats.check_input, which muxport.formats does not export",
        "probe.py:6 imports muxport.testing: import from muxport, muxport.formats, "
        "muxport.policy",
    ]


def test_the_core_imports_no_private_module_of_the_sdk() -> None:
    """The SDK's underscored modules may change in any release (``mcp>=2.3,<3``)."""
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {module} {names}"
        for path in (ROOT / "core" / "src").glob("**/*.py")
        for line, module, names in imports(path)
        if module.split(".")[0] == "mcp"
        and any(part.startswith("_") for part in [*module.split("."), *names])
    ]
    assert found == []

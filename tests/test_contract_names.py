"""Every public name is documented, and every documented name exists (as datasette checks
that every hook is documented): the tables of docs/plugin-contract.md name the ``__all__``
of ``muxport`` and of each public submodule, and the public members of ``ToolContext``
and of the ``Tmux`` protocol, exactly."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from pathlib import Path

import muxport
import pytest

pytestmark = pytest.mark.timeout(30)

CONTRACT = Path(__file__).resolve().parents[1] / "docs" / "plugin-contract.md"
HEADING = re.compile(r"^### `([\w.]+)`$")
ROW = re.compile(r"^\| `(\w+)` \|")


def documented(contract: Path = CONTRACT) -> dict[str, set[str]]:
    """Each ``### `name` `` heading -> the names in the first column of its table."""
    tables: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in contract.read_text().splitlines():
        heading = HEADING.match(line)
        if heading:
            current = tables.setdefault(heading[1], set())
        elif line.startswith("#"):
            current = None
        elif current is not None and (row := ROW.match(line)):
            current.add(row[1])
    return tables


def public_modules() -> list[str]:
    """``muxport`` and every submodule whose name does not start with ``_``."""
    found = [info.name for info in pkgutil.iter_modules(muxport.__path__, "muxport.")]
    return ["muxport", *sorted(name for name in found if not name.split(".")[-1].startswith("_"))]


def members(cls: type) -> set[str]:
    names = {name for name in vars(cls) if not name.startswith("_")}
    if dataclasses.is_dataclass(cls):
        names |= {f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")}
    return names


def test_the_public_modules_are_the_documented_ones() -> None:
    assert public_modules() == ["muxport", "muxport.formats", "muxport.policy", "muxport.testing"]


@pytest.mark.parametrize("module", public_modules())
def test_every_exported_name_is_documented_and_every_documented_name_exported(module: str):
    exported = set(importlib.import_module(module).__all__)
    table = documented().get(module)
    assert table is not None, f"docs/plugin-contract.md has no table for {module}"
    assert exported - table == set(), f"{module} exports names the contract does not document"
    assert table - exported == set(), f"the contract documents names {module} does not export"


@pytest.mark.parametrize("cls", [muxport.ToolContext, muxport.Tmux], ids=lambda c: c.__name__)
def test_the_call_and_the_tmux_client_are_documented_member_for_member(cls: type) -> None:
    assert members(cls) == documented()[cls.__name__]


def test_the_reader_takes_only_the_first_column_under_its_heading(tmp_path: Path) -> None:
    contract = tmp_path / "contract.md"
    contract.write_text(
        "### `muxport.policy`\n\n| name | what |\n|---|---|\n| `search` | not `this` |\n"
        "## Elsewhere\n\n| `other` | x |\n"
    )
    assert documented(contract) == {"muxport.policy": {"search"}}

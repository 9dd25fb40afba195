"""The house as docs/architecture.md describes it, read from the source: no import circle in
the core (the launcher included) or in a first-party toolset, and every module listed in
"Modules" with one line on its job (none listed that is gone)."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(30)

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
# The packages docs/architecture.md lists module by module, and those checked for circles
# together (the launcher's command imports the core, the core the launcher's other modules).
PACKAGES = {
    "core": ("core/src/muxport", "core/src/muxport_launch"),
    "inspect": ("plugins/inspect/src/muxport_inspect",),
    "manage": ("plugins/manage/src/muxport_manage",),
    "execute": ("plugins/execute/src/muxport_execute",),
    "teardown": ("plugins/teardown/src/muxport_teardown",),
}
# Circles being taken apart elsewhere, each named by the work that removes it. A listed
# circle that is gone fails too: delete its line here then.
KNOWN_CIRCLES: set[frozenset[str]] = set()


def modules(group: str) -> dict[str, Path]:
    found = {}
    for package in PACKAGES[group]:
        base = ROOT / package
        for path in sorted(base.rglob("*.py")):
            parts = (base.name, *path.relative_to(base).with_suffix("").parts)
            found[".".join(parts).removesuffix(".__init__")] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``name`` imports anywhere: at the top, inside a function
    (a circle at run time all the same) or under ``TYPE_CHECKING`` (one in the design)."""

    def nearest(dotted: str) -> str | None:  # a name imported from a module is that module
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found: set[str | None] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {nearest(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1
                package = name.split(".")[: None if path.name == "__init__.py" else -1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, *([node.module] if node.module else [])])
            found |= {nearest(f"{base}.{alias.name}") for alias in node.names}
    # Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first: an edge to
    # each, unless it is a package of ``name`` itself (Python has run that one already).
    ran = {".".join(m.split(".")[:i]) for m in found if m for i in range(1, m.count(".") + 1)}
    own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    return {m for m in found | ran if m in known and m != name and m not in own}


def circles(graph: dict[str, set[str]]) -> Iterator[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(node: str) -> Iterator[frozenset[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                yield from visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = {node}
            while (member := stack.pop()) != node:
                component.add(member)
            on_stack.difference_update(component)
            if len(component) > 1:
                yield frozenset(component)

    for node in sorted(graph):
        if node not in index:
            yield from visit(node)


def described(component: frozenset[str], graph: dict[str, set[str]]) -> str:
    ties = [f"  {a} -> {b}" for a in sorted(component) for b in sorted(graph[a] & component)]
    return "import circle of " + ", ".join(sorted(component)) + ":\n" + "\n".join(ties)


@pytest.mark.parametrize("group", PACKAGES)
def test_no_import_circle(group: str) -> None:
    known = modules(group)
    graph = {name: imported(name, path, known) for name, path in known.items()}
    found = set(circles(graph))
    new = [described(c, graph) for c in sorted(found - KNOWN_CIRCLES, key=sorted)]
    assert not new, "\n".join(new)
    gone = [sorted(c) for c in KNOWN_CIRCLES if c <= set(known) and c not in found]
    assert not gone, f"known circles no longer found; delete them from KNOWN_CIRCLES: {gone}"


def test_a_circle_through_a_function_or_type_import_is_found(tmp_path: Path) -> None:
    sources = {
        "a": "from pkg.b import B\n",
        "b": "def later():\n    from pkg import c\n",
        "c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n",
        "d": "import pkg.a\n",
    }
    known = {}
    for name, source in sources.items():
        (tmp_path / f"{name}.py").write_text(source)
        known[f"pkg.{name}"] = tmp_path / f"{name}.py"
    graph = {name: imported(name, path, known) for name, path in known.items()}
    assert graph["pkg.d"] == {"pkg.a"}
    assert list(circles(graph)) == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]


def test_importing_a_module_runs_its_package_first(tmp_path: Path) -> None:
    sources = {
        "app": "from launch.leaf import X\n",
        "launch/__init__.py": "def main():\n    import app\n",
        "launch/leaf.py": "from launch.other import Y\n",
        "launch/other.py": "",
    }
    known = {}
    for name, source in sources.items():
        path = tmp_path / (name if name.endswith(".py") else f"{name}.py")
        path.parent.mkdir(exist_ok=True)
        path.write_text(source)
        known[name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")] = path
    graph = {name: imported(name, path, known) for name, path in known.items()}
    assert graph["app"] == {"launch", "launch.leaf"}
    assert graph["launch.leaf"] == {"launch.other"}  # its own package ran already
    assert list(circles(graph)) == [frozenset({"app", "launch"})]


# "Modules" in docs/architecture.md: one "### `PACKAGE/`" heading per package, then one line
# per module in path order: "- `PATH`: its job", PATH from the package's directory.
HEADING = re.compile(r"^### `(?P<package>[^`]+)/`$")
LINE = re.compile(r"^- `(?P<path>[^`]+\.py)`: (?P<job>\S.*)$")


def listed() -> dict[str, list[tuple[str, str]]]:
    """Each package's lines of "Modules", as (path, whole line); a line that is no module
    line is kept with an empty path, and reported."""
    text = DOC.read_text().split("\n## Modules\n", 1)
    assert len(text) == 2, 'docs/architecture.md has no "## Modules" section'
    section = text[1].split("\n## ", 1)[0]
    found: dict[str, list[tuple[str, str]]] = {}
    lines: list[tuple[str, str]] | None = None
    for line in section.splitlines():
        heading = HEADING.match(line)
        if heading:
            lines = found.setdefault(heading["package"], [])
        elif lines is not None and line.strip():
            match = LINE.match(line)
            lines.append((match["path"] if match else "", line))
    return found


def job(path: Path) -> str:
    """A line to start from: the first sentence of the module's docstring."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or "WHAT IT DOES"
    return " ".join(doc.split()).split(". ")[0].rstrip(".")


def test_every_module_is_listed_with_its_job() -> None:
    found = listed()
    packages = [package for group in PACKAGES.values() for package in group]
    problems = [f'add a heading "### `{p}/`" to "Modules"' for p in packages if p not in found]
    problems += [f'"### `{p}/`" names no package of PACKAGES' for p in found if p not in packages]
    for package in packages:
        lines = found.get(package, [])
        base = ROOT / package
        tree = sorted(str(p.relative_to(base)) for p in base.rglob("*.py"))
        paths = [path for path, _ in lines]
        problems += [f"under `{package}/`, not a module line: {line!r}"
                     for p, line in lines if not p]
        problems += [f"under `{package}/`, `{p}` is listed twice" for p in set(paths)
                     if p and paths.count(p) > 1]
        problems += [f"under `{package}/`, `{p}` is gone: delete its line" for p in paths
                     if p and p not in tree]
        kept = [p for p in paths if p in tree]
        problems += [f"under `{package}/`, keep path order: `{a}` comes before `{b}`"
                     for a, b in itertools.pairwise(kept) if a > b]
        for missing in (p for p in tree if p not in paths):
            after = [p for p in kept if p < missing]
            where = f"after the line of `{after[-1]}`" if after else "as its first line"
            problems.append(f"under `{package}/`, {where}, add (say what it does, in one line):\n"
                            f"- `{missing}`: {job(base / missing)}")
    assert not problems, "docs/architecture.md, Modules:\n" + "\n".join(problems)

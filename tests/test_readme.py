"""The README's examples are true: its config blocks parse, its toolset example registers
and passes the manifest rules, and the flags and scripts it names exist."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import types
from pathlib import Path

from muxport import ToolRegistry
from muxport._internal.registry import validate_manifest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_json_mcp_servers_block_is_valid() -> None:
    (block,) = blocks("json")
    servers = json.loads(block)["mcpServers"]
    assert servers["muxport"]["command"].endswith("/muxport")
    assert set(servers["muxport"]["env"]) <= {"LIBTMUX_TOOLSETS", "LIBTMUX_TOOLS"}


def test_toml_blocks_parse() -> None:
    parsed = [tomllib.loads(block) for block in blocks("toml")]
    codex = next(p for p in parsed if "mcp_servers" in p)
    assert codex["mcp_servers"]["muxport"]["args"] == ["--socket-name", "default"]
    plugin = next(p for p in parsed if "project" in p)
    assert plugin["project"]["entry-points"]["muxport.toolsets"] == {"clock": "muxport_clock"}


def test_toolset_example_registers_and_passes_the_rules() -> None:
    (code,) = blocks("python")
    module = types.ModuleType("readme_clock")
    sys.modules[module.__name__] = module  # pydantic resolves the models' types through it
    exec(compile(code, "README.md", "exec"), module.__dict__)
    registry = ToolRegistry("clock", "readme_clock")
    module.register_tools(registry)
    validate_manifest(registry.tools)
    assert [spec.name for spec in registry.tools] == ["show_clock"]
    shipped = (ROOT / "examples/muxport-clock/src/muxport_clock/__init__.py").read_text()
    signature = "async def show_clock(ctx: ToolContext, args: ShowClockArgs) -> ClockShown:"
    assert signature in code and signature in shipped, "README and example drifted apart"


def test_flags_and_scripts_named_exist() -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "muxport", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for flag in set(re.findall(r"`(--[a-z-]+)", README)) - {"--all-packages", "--json", "--help"}:
        assert flag in help_text, flag
    for script in ("scripts/serve", "scripts/test", ".ci/run"):
        assert (ROOT / script).stat().st_mode & 0o111, script

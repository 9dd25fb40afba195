"""How far run_shell_command's arguments travel (docs/architecture.md, "Execute"): every
execute function that receives one of them, or an object holding one, during a real run
is traced; the files those functions are in, in call order, are the path a maintainer
follows."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)

PACKAGE = Path(__file__).parents[1] / "src" / "muxport_execute"
MAX_FILES = 8


def holds(value: object, wanted: list[object]) -> bool:
    if any(value is w for w in wanted):
        return True
    try:
        inner = vars(value)
    except TypeError:
        return False
    return any(any(v is w for w in wanted) for v in inner.values())


def path_of(wanted: list[object], calls: list[str]) -> Any:
    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        where = frame.f_code.co_filename
        if not where.startswith(str(PACKAGE)):
            return
        values = [frame.f_locals[name] for name in frame.f_code.co_varnames[
            : frame.f_code.co_argcount + frame.f_code.co_kwonlyargcount
        ] if name in frame.f_locals]
        if any(holds(v, wanted) for v in values):
            calls.append(str(Path(where).relative_to(PACKAGE)))

    return profile


async def test_run_shell_command_arguments_stay_in_few_files(mcp_client, shell_pane):
    pane = shell_pane("bash")
    async with mcp_client(toolsets=["execute"]) as (client, _app):
        await client.call_tool("run_shell_command", {"pane_id": pane.pane_id, "command": "true"})
        calls: list[str] = []
        command = "echo " + "traced" + " path"
        pane_id = "".join(pane.pane_id)  # objects of their own, to follow by identity
        sys.setprofile(path_of([pane_id, command], calls))
        try:
            result = await client.call_tool(
                "run_shell_command", {"pane_id": pane_id, "command": command}
            )
        finally:
            sys.setprofile(None)
    assert result.structured_content["output"] == ["traced path"]
    files = list(dict.fromkeys(calls))
    returns = sum(1 for i in range(1, len(calls)) if calls[i] != calls[i - 1]
                  and calls[i] in calls[:i])
    print(f"run_shell_command's arguments: {len(files)} files, {returns} returns: {files}")
    assert len(files) <= MAX_FILES, files

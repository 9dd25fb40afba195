"""How far run_shell_command's arguments travel (docs/architecture.md, "Execute"): every
execute function that receives one of them as a parameter during a real run is traced;
the files those functions are in are the path a maintainer follows. The tool's own
module (run/tools.py) receives the argument model, not its values, and is not counted."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)

PACKAGE = Path(__file__).parents[1] / "src" / "muxport_execute"
# 8 before issue 31; the table of frame kinds (frames/kinds.py) is the one hop its seam adds:
# a kind is asked whether it applies to the pane's facts, the pane id among them
MAX_FILES = 9


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
        if any(v is w for v in values for w in wanted):
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

"""The launcher's other commands: ``tools`` (no tmux), ``doctor``, ``--version``, ``--help``."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import muxport

FIRST_PARTY = ("inspect", "manage", "execute", "teardown")


def test_tools_json_lists_the_surface_without_tmux(muxport_cli, recording_tmux, tmp_path):
    tmpdir = tmp_path / "tmux-tmpdir"
    env = {"LIBTMUX_TMUX_BIN": recording_tmux.path, "TMUX_TMPDIR": str(tmpdir)}
    done = muxport_cli("tools", "--json", env=env)
    assert done.returncode == 0, done.stderr
    surface = json.loads(done.stdout)
    rows = {row["name"]: row for row in surface["tools"]}
    assert {"list_sessions", "list_windows", "list_panes"} <= set(rows)
    assert surface["selection"]["toolsets"] == list(FIRST_PARTY)
    assert set(FIRST_PARTY) <= set(surface["selection"]["installed_toolsets"])
    assert {row["toolset"] for row in rows.values()} <= set(FIRST_PARTY)
    for row in rows.values():
        assert row["description"] and row["input_schema"] and row["output_schema"]
        assert row["tmux_effects"] and row["output_classes"]
    assert rows["list_panes"]["toolset"] == "inspect"
    assert rows["list_panes"]["process_reach"] == "none"
    # nothing ran tmux and no server or socket directory appeared
    assert recording_tmux.calls() == []
    assert not tmpdir.exists()

    selected = muxport_cli("tools", "--json", "--toolsets", "inspect", "--exclude-tool",
                           "list_panes", env=env)
    names = {row["name"] for row in json.loads(selected.stdout)["tools"]}
    assert "list_panes" not in names and "list_sessions" in names

    table = muxport_cli("tools", env=env)
    assert table.returncode == 0
    assert table.stdout.splitlines()[0].split() == ["tool", "toolset", "reach", "effects"]
    assert any(line.split()[:3] == ["list_sessions", "inspect", "none"]
               for line in table.stdout.splitlines())
    assert recording_tmux.calls() == []


def test_version_and_help(muxport_cli):
    version = muxport_cli("--version")
    assert version.returncode == 0
    assert version.stdout.strip() == f"muxport {muxport.__version__}"
    helped = muxport_cli("--help")
    assert helped.returncode == 0
    for word in ("tools", "doctor", "--toolsets", "--tool", "--exclude-tool", "--socket",
                 "--socket-name", "--tmux", "LIBTMUX_TOOLSETS", "LIBTMUX_SOCKET_PATH"):
        assert word in helped.stdout, word


def test_doctor_prints_version_socket_caller_and_selection(muxport_cli, tmux_server):
    done = muxport_cli("doctor", env={"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                                      "LIBTMUX_TOOLSETS": "inspect"})
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    # a release (3.5a) or a build of the next one (tmux -V says "next-3.8")
    assert re.fullmatch(r"/\S+ \(tmux (?:next-)?\d+\.\d+[a-z]?\)", lines["tmux"]), lines["tmux"]
    assert lines["socket"] == (f"{tmux_server.socket_path} (socket_path, from environment; "
                               "server existing)")
    assert lines["caller"].startswith("outside")
    assert lines["toolsets"] == "inspect"
    assert "list_panes" in done.stdout
    # doctor has no client: it says how a client is asked, and where to see if it can be
    assert lines["ask the person"].startswith("when the client declares elicitation, within 120 s")


def test_doctor_never_starts_the_dedicated_daemon(muxport_cli):
    tmpdir = Path(tempfile.mkdtemp(prefix="mx-"))
    try:
        done = muxport_cli("doctor", env={"TMUX_TMPDIR": str(tmpdir)})
        assert done.returncode == 0, done.stderr
        socket = tmpdir / f"tmux-{os.getuid()}" / "muxport"
        assert f"socket: {socket} (dedicated, from default; server absent)" in done.stdout
        assert "toolsets: inspect, manage, execute, teardown" in done.stdout
        assert not socket.exists()
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)

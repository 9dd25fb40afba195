"""The launcher's other commands: ``tools`` (no tmux), ``doctor``, ``--version``, ``--help``."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from importlib import metadata
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


def installed_lines(stdout: str) -> dict[str, str]:
    """``doctor``'s ``installed toolset NAME: ...`` lines, by name."""
    prefix = "installed toolset "
    return dict(line.removeprefix(prefix).split(": ", 1) for line in stdout.splitlines()
                if line.startswith(prefix))


def test_doctor_lists_every_installed_toolset_selected_or_not(muxport_cli, tmux_server):
    """plugin-contract.md: doctor lists the installed toolsets, with their versions, and
    says which are selected (the example toolset is installed in the dev environment and
    off by default; issue 31)."""
    done = muxport_cli("doctor", env={"LIBTMUX_SOCKET_PATH": tmux_server.socket_path,
                                      "LIBTMUX_TOOLSETS": "inspect"})
    assert done.returncode == 0, done.stderr
    found = installed_lines(done.stdout)
    installed = {ep.name: ep.dist for ep in metadata.entry_points(group="muxport.toolsets")}
    assert {"clock", *FIRST_PARTY} <= set(found) == set(installed)
    for name, dist in installed.items():
        assert found[name].startswith(f"{dist.version} ({dist.name}; "), found[name]
    assert re.fullmatch(r"\S+ \(muxport-inspect; selected: (\d+) of \1 tools\)", found["inspect"])
    assert found["clock"].endswith("; not selected: 0 of 1 tools)"), found["clock"]
    assert "not selected" in found["execute"]


def test_tools_installed_lists_every_installed_toolset(muxport_cli, recording_tmux):
    env = {"LIBTMUX_TMUX_BIN": recording_tmux.path}
    versions = {ep.name: ep.dist.version for ep in metadata.entry_points(group="muxport.toolsets")}
    done = muxport_cli("tools", "--installed", "--json", "--toolsets", "clock,inspect", env=env)
    assert done.returncode == 0, done.stderr
    rows = {row["toolset"]: row for row in json.loads(done.stdout)["installed"]}
    assert {name: row["version"] for name, row in rows.items()} == versions
    assert rows["clock"]["distribution"] == "muxport-clock"
    assert rows["clock"]["selected_tools"] == rows["clock"]["tools"] == 1
    assert rows["teardown"]["selected_tools"] == 0 and rows["teardown"]["tools"] > 0
    table = muxport_cli("tools", "--installed", env=env)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["toolset", "version", "distribution", "selected"]
    assert any(line.split()[:3] == ["clock", versions["clock"], "muxport-clock"]
               and line.split()[3] == "0/1" for line in lines)
    assert recording_tmux.calls() == []

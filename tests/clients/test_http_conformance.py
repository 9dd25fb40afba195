"""The MCP conformance suite (``@modelcontextprotocol/conformance``, on Node 22 from npm)
against ``muxport --http`` (docs/http.md, "Conformance"). The suite tests a server by URL
alone and sends no token, so it reaches muxport through a reverse proxy that adds it, as
a remote client does through a TLS proxy; muxport is told the proxy's names.

The scenarios that call the suite's own fixtures (its test tools, resources and
prompts) or features muxport does not offer are not applicable; they are listed with
the reason in docs/http.md, and here, so that a new suite version's scenario is noticed.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from muxport.testing import agents
from muxport.testing.http import serving_http
from token_proxy import token_proxy

pytestmark = pytest.mark.timeout(300)
APPLICABLE = ("server-initialize", "ping", "logging-set-level", "tools-list",
              "tools-call-simple-text", "tools-call-error", "resources-list",
              "server-sse-multiple-streams", "dns-rebinding-protection")
NOT_APPLICABLE = {
    "completion-complete": "muxport offers no completions",
    "tools-call-image": "the suite's fixture tool test_image_content",
    "tools-call-audio": "the suite's fixture tool test_audio_content",
    "tools-call-embedded-resource": "the suite's fixture tool test_embedded_resource",
    "tools-call-mixed-content": "the suite's fixture tool test_multiple_content_types",
    "tools-call-with-logging": "the suite's fixture tool test_tool_with_logging",
    "tools-call-with-progress": "the suite's fixture tool test_tool_with_progress",
    "tools-call-sampling": "the suite's fixture tool test_sampling",
    "tools-call-elicitation": "the suite's fixture tool test_elicitation",
    "elicitation-sep1034-defaults": "the suite's fixture tool",
    "elicitation-sep1330-enums": "the suite's fixture tool",
    "json-schema-2020-12": "the suite's fixture tool json_schema_2020_12_tool",
    "server-sse-polling": "the suite's fixture tool, and resuming a stream (no event store)",
    "resources-read-text": "the suite's fixture resource test://static-text",
    "resources-read-binary": "the suite's fixture resource test://static-binary",
    "resources-templates-read": "the suite's fixture template test://template/{id}/data",
    "resources-subscribe": "muxport offers no resource subscriptions",
    "resources-unsubscribe": "muxport offers no resource subscriptions",
    "prompts-list": "muxport offers no prompts",
    "prompts-get-simple": "muxport offers no prompts",
    "prompts-get-with-args": "muxport offers no prompts",
    "prompts-get-embedded-resource": "muxport offers no prompts",
    "prompts-get-with-image": "muxport offers no prompts",
}


@pytest.fixture(scope="module")
def suite() -> list[str]:
    why = agents.install("conformance")
    if why is not None:
        pytest.skip(f"the conformance suite is not installed: {why}")
    return [str(agents.node_bin() / "node"), str(agents.AGENTS["conformance"].binary)]


async def test_every_scenario_is_judged(suite):
    listed = await anyio.run_process([*suite, "list", "--server"], check=False)
    names = {line.strip()[2:].split(" [")[0] for line in listed.stdout.decode().splitlines()
             if line.strip().startswith("- ")}
    assert names == set(APPLICABLE) | set(NOT_APPLICABLE), "a scenario to judge: see docs/http.md"


async def test_the_applicable_scenarios_pass(suite, tmux_server, tmp_path: Path):
    failed: dict[str, list[str]] = {}
    async with token_proxy() as proxy:
        with serving_http(tmux_server.socket_path, args=proxy.names()) as served:
            proxy.upstream, proxy.token = served.url, served.token
            for scenario in APPLICABLE:
                out = tmp_path / scenario
                await anyio.run_process([*suite, "server", "--url", proxy.url, "--scenario",
                                         scenario, "-o", str(out)], check=False)
                checks = [c for found in out.glob("*/checks.json")
                          for c in json.loads(found.read_text())]
                bad = [f"{c['name']}: {c.get('errorMessage')}" for c in checks
                       if c["status"] in ("FAILURE", "WARNING")]
                if bad or not checks:
                    failed[scenario] = bad or ["no checks were run"]
    assert failed == {}

"""How much of one answer each client hands its model whole (README, "Answers a client
keeps"; docs/answers.md, "The answer budget"): the one table to update when a client's
limit is measured again.

A limit is in characters of what the client shows its model: Claude Code shows
``structuredContent`` as JSON, Gemini CLI and Codex the text block. Above it a client
cuts, and what it cuts first is the newest lines (Claude Code files the answer away and
shows its oldest 2 KB), so an answer must stay under it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClientLimit:
    """One client's measured limit and the budget muxport answers it with (the limit less a
    margin: a client's count is not exactly ours, and its own wrapping adds characters)."""

    word: str  # found in clientInfo.name, case-insensitive (not "claude": Claude Desktop)
    client: str  # the client as a person knows it, with the version measured
    keeps: int  # characters it hands its model whole
    budget: int  # the answer budget used for it


# Measured end to end with each client and a scripted model endpoint (issue 29).
CLIENTS = (
    ClientLimit("claude-code", "Claude Code 2.1.332", 50_000, 45_000),
    # gemini-cli-mcp-client; it keeps the first 8,000 and the last 32,000 of a longer one
    ClientLimit("gemini-cli", "Gemini CLI 0.61", 40_000, 36_000),
    # codex-mcp-client; Codex counts UTF-8 bytes (10,000 tokens of 4): 40,000 characters of
    # ASCII, fewer of wider ones; above it, it keeps the first and the last halves (the
    # newest lines survive), so the ASCII count is the one to stay under
    ClientLimit("codex", "Codex 0.171", 40_000, 30_000),
)
# Under the smallest limit measured (Gemini CLI's 40,000), with a margin for a client not
# in the table, whose limit may be smaller.
DEFAULT_BUDGET = 30_000


def known(client_name: str | None) -> ClientLimit | None:
    """The table's row of the client that named itself ``client_name``, if any."""
    name = (client_name or "").lower()
    return next((row for row in CLIENTS if row.word in name), None)

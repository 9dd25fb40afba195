"""The ``muxport`` command's arguments (``muxport --help``)."""

from __future__ import annotations

import argparse

from muxport_launch.early import VERSION


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="muxport",
        description="Serve a tmux server to an MCP client over stdio (or HTTP: --http).",
        epilog="Environment: LIBTMUX_TOOLSETS, LIBTMUX_TOOLS, LIBTMUX_EXCLUDE_TOOLS, "
        "LIBTMUX_SOCKET_PATH, LIBTMUX_SOCKET, LIBTMUX_SSH, LIBTMUX_TMUX_BIN, LIBTMUX_TMUX_CONFIG, "
        "LIBTMUX_MCP_WAIT_MAX_SECONDS, LIBTMUX_AUDIT. Flags win over the environment.",
    )
    p.add_argument("command", nargs="?", default="serve", choices=["serve", "tools", "doctor"],
                   help="serve (default): MCP over stdio; tools: print the surface; "
                   "doctor: tmux version, socket, caller and selection")
    p.add_argument("--version", action="version", version=f"muxport {VERSION}")
    p.add_argument("--socket", help="tmux socket path (like tmux -S)")
    p.add_argument("--socket-name", help="tmux socket name (like tmux -L)")
    p.add_argument("--tmux", help="tmux binary to use")
    p.add_argument("--ssh", metavar="DESTINATION",
                   help="serve the tmux server of another host over ssh (user@host or a Host "
                   "alias); --socket, --socket-name and --tmux then name that host's")
    p.add_argument("--ssh-option", action="append", default=[], metavar="KEY=VALUE",
                   help="passed to ssh as -o KEY=VALUE (repeatable)")
    p.add_argument("--toolsets", help="comma-separated toolsets (empty selects none)")
    p.add_argument("--tool", action="append", default=[], help="add tool(s) by name")
    p.add_argument("--exclude-tool", action="append", default=[], help="remove tool(s) by name")
    p.add_argument("--json", action="store_true", help="tools: print JSON instead of a table")
    p.add_argument("--installed", action="store_true",
                   help="tools: list every installed toolset, selected or not, with its version")
    p.add_argument("--verbose", action="store_true",
                   help="serve: print the startup line on stderr even when it is not a "
                   "terminal (otherwise it is an MCP log message after initialize)")
    p.add_argument("--http", metavar="[HOST:]PORT",
                   help="serve MCP over streamable HTTP on http://HOST:PORT/mcp instead of "
                   "stdio (host 127.0.0.1 by default; env MUXPORT_HTTP); see docs/http.md")
    p.add_argument("--http-token-file", metavar="PATH",
                   help="http: the bearer token's file (env MUXPORT_HTTP_TOKEN_FILE; default: "
                   "one made at random under ~/.local/state/muxport)")
    p.add_argument("--tls-cert", metavar="PEM", help="http: serve HTTPS with this certificate")
    p.add_argument("--tls-key", metavar="PEM", help="http: ... and this private key")
    p.add_argument("--http-insecure", action="store_true",
                   help="http: allow plain HTTP on an address outside loopback")
    p.add_argument("--http-allow-host", action="append", default=[], metavar="HOST:PORT",
                   help="http: another Host header to serve (a reverse proxy's name)")
    p.add_argument("--http-allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="http: a browser Origin to serve (none is, by default)")
    p.add_argument("--assume", choices=["created", "existing"], default="created",
                   help="tools: which default to show (daemon created by this process or not)")
    return p

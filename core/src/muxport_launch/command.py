"""The ``muxport`` command (its console script): its arguments, then the server, which loads
behind an early answer to ``initialize`` or ``server/discover`` (``early.py``). Only the
standard library is imported here, and next to none of it before ``main`` holds SIGINT and
SIGTERM: ``--help``, ``--version`` and the first answer come before the SDK, pydantic and
the toolsets load."""

from __future__ import annotations

# _signal, not signal: signal imports enum (and enum half of collections), and the handlers
# are to be in place before that much can run with Python's own SIGINT handler.
import _signal  # type: ignore[import-not-found]  # no stub: the C half of signal
import os
import sys

from muxport_launch.signals import exit_at_once_on_signals

__all__ = ["FIRST_WAIT", "main", "over_http", "surely_serving"]
FIRST_WAIT = 0.1  # seconds the loading waits for the first answer (a client that is slower
# to write is answered while it loads)


def surely_serving(words: list[str]) -> bool:
    """Whether the command is ``serve`` (the default) whatever the rest says, told without
    argparse: no word names another command, the help or the version (argparse takes
    ``--vers`` for ``--version``). Loading argparse first cost the first answer 0.1 s of a
    loaded machine; a word this cannot judge only delays the early answer until after it."""
    for word in words:
        option = word.split("=", 1)[0]
        named = len(option) > 2 and ("--help".startswith(option) or "--version".startswith(option))
        if word in ("tools", "doctor") or word.startswith("-h") or named:
            return False
    return not over_http(words)


def over_http(words: list[str]) -> bool:
    """Whether ``--http`` (or ``MUXPORT_HTTP``) serves HTTP: stdin and stdout are then not
    the wire, and nothing reads them (docs/http.md)."""
    return bool(os.environ.get("MUXPORT_HTTP")) or any(
        w == "--http" or w.startswith("--http=") for w in words)


def main(argv: list[str] | None = None) -> int:
    exit_at_once_on_signals()  # until the watcher takes over, before the first tmux process
    words = sys.argv[1:] if argv is None else argv
    from muxport_launch.early import EarlyInitialize

    early = EarlyInitialize() if surely_serving(words) else None
    if early is not None:
        # A first line already written is answered before anything else loads: racing the
        # imports for the GIL, the answer waited whenever a loaded machine preempted the
        # importing thread holding it (0.3-0.6 s instead of 0.1 s with both cores busy).
        early.done.wait(FIRST_WAIT)
    from muxport_launch.arguments import parser

    try:
        args = parser().parse_args(words)
    except SystemExit as exc:  # argparse refused the words (it said why on stderr)
        if early is not None and exc.code:
            early.startup_failed(f"muxport: bad arguments {' '.join(words)!r}; see its stderr")
        raise
    if args.command == "serve" and not over_http(words):
        early = early or EarlyInitialize()
    else:  # tools, doctor: Ctrl-C as Python has it (cli.run answers it with 130)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
    from muxport._internal.cli import run  # the SDK, pydantic, the toolsets: most of a second

    return run(args, early)

"""Record the stdio traffic between an MCP client and a server it spawns:
``python stdio_recorder.py LOG COMMAND [ARGS...]`` runs COMMAND with the client's stdin and
stdout passed through, and appends one JSON line per message to LOG:
``{"t": seconds since the start, "dir": "in" | "out", "msg": the line}`` (``in``: client to
server). The server's stderr is passed through unchanged. Signals reach COMMAND, which
replaces nothing: the recorder exits with COMMAND's status.

Standard library only, run as a script (not ``-m``), so it starts in a few milliseconds
and adds nothing to what it measures (tests/clients, docs/client-fit.md).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from typing import IO


def pump(source: IO[bytes], sink: IO[bytes], log: IO[str], direction: str,
         start: float, lock: threading.Lock) -> None:
    for line in iter(source.readline, b""):
        with lock:
            log.write(json.dumps({"t": round(time.monotonic() - start, 4), "dir": direction,
                                  "msg": line.decode(errors="replace").rstrip("\n")}) + "\n")
            log.flush()
        try:
            sink.write(line)
            sink.flush()
        except (BrokenPipeError, ValueError):
            break
    try:
        sink.close()
    except (BrokenPipeError, ValueError):
        pass


def main() -> int:
    log_path, command = sys.argv[1], sys.argv[2:]
    start = time.monotonic()
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda n, _f: child.send_signal(n))
    lock = threading.Lock()
    with open(log_path, "a") as log:
        assert child.stdin is not None and child.stdout is not None
        inbound = threading.Thread(target=pump, daemon=True, args=(
            sys.stdin.buffer, child.stdin, log, "in", start, lock))
        inbound.start()
        pump(child.stdout, sys.stdout.buffer, log, "out", start, lock)
        return child.wait()


if __name__ == "__main__":
    sys.exit(main())

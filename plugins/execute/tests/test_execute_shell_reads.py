"""shell_reads answers "unknown" rather than guessing where /proc cannot tell (issue 10)."""

from __future__ import annotations

import os

from muxport_execute.host import shell_reads


def test_unknowns_never_count_as_a_read_or_a_taken_line() -> None:
    assert shell_reads.bytes_read(None) is None
    assert shell_reads.bytes_read(2**22 + 12345) is None  # above the kernel's pid limit
    assert shell_reads.queued("/nonexistent/tty") is None
    assert shell_reads.pending_read(None, "/dev/pts/0") is False
    assert shell_reads.pending_read(os.getpid(), "not-a-tty") is False
    assert shell_reads.took_line(os.getpid(), "/dev/pts/0", None, 10) is False
    assert shell_reads.took_line(None, "/dev/pts/0", 0, 10) is False


def test_bytes_read_grows_with_reads() -> None:
    before = shell_reads.bytes_read(os.getpid())
    assert before is not None
    with open(__file__, "rb") as f:
        size = len(f.read())
    after = shell_reads.bytes_read(os.getpid())
    assert after is not None and after - before >= size

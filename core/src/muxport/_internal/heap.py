"""Large buffers go back to the system when freed (docs/reliability.md, bounded memory).

glibc serves an allocation above its mmap threshold (128 KiB) with its own mapping, which
``free`` unmaps at once; but after the first such free it raises the threshold to that
size, so later 400 KB answers (their JSON, the capture, its lines) come from the heap, and
a heap freed in the middle is kept by the process. Fixing the threshold keeps every answer-
sized buffer in its own mapping: a burst of large answers then leaves memory near its
baseline instead of the burst's peak. Elsewhere (musl, macOS) this is a no-op.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3  # malloc.h
THRESHOLD = 128 << 10  # glibc's own default, kept from moving


def fix_mmap_threshold() -> bool:
    """Pin glibc's mmap threshold; whether it was pinned."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(M_MMAP_THRESHOLD, THRESHOLD))
    return False

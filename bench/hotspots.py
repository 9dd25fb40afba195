"""Summarise py-spy ``--format raw`` samples (collapsed stacks): the hottest frames."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

TOP = 25


def frame_name(frame: str) -> str:
    """``func (path/to/file.py:12)`` -> ``func (file.py)``; line numbers merged."""
    match = re.match(r"(.*) \((.*?):\d+\)$", frame.strip())
    if not match:
        return frame.strip()
    func, path = match.groups()
    parts = Path(path).parts
    short = "/".join(parts[-2:]) if len(parts) > 1 else path
    return f"{func} ({short})"


def main(paths: list[str]) -> None:
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for path in paths:
        for line in Path(path).read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            frames = [frame_name(f) for f in stack.split(";")]
            total += n
            own[frames[-1]] += n
            for name in set(frames):
                inclusive[name] += n
    if not total:
        print("no samples (py-spy needs ptrace permission on the server process)")
        return
    print(f"{total} samples of the muxport server while busy")
    for title, counter in (("inclusive", inclusive), ("self", own)):
        print(f"\n-- {title} --")
        for name, n in counter.most_common(TOP):
            print(f"{100 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])

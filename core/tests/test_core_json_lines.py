"""The test kit's one JSON-line reader: answers in the order asked whatever order they
came in, other messages skipped, and every read ends by its deadline or at end of stream."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import BinaryIO

import pytest
from muxport.testing import JsonLines

pytestmark = pytest.mark.timeout(10)


@pytest.fixture
def pipe() -> Iterator[tuple[JsonLines, BinaryIO]]:
    read, write = os.pipe()
    with open(read, "rb", buffering=0) as reader, open(write, "wb", buffering=0) as writer:
        yield JsonLines(reader), writer


def test_answers_come_in_the_order_asked_and_other_messages_are_skipped(pipe) -> None:
    lines, write = pipe
    write.write(b'{"method": "notifications/progress"}\n{"id": 2, "result": 2}\n{"id"')
    write.write(b': 1, "result": 1}\n{"id": 3, "result": 3}\n')
    assert lines.answers([1, 2], timeout=1) == [{"id": 1, "result": 1}, {"id": 2, "result": 2}]
    assert lines.message(timeout=1) == {"id": 3, "result": 3}
    assert len(lines.raw) == 4


def test_a_silent_stream_ends_the_read_at_its_deadline(pipe) -> None:
    lines, write = pipe
    write.write(b'{"id": 1')  # half a line is no line
    with pytest.raises(TimeoutError):
        lines.answer(1, timeout=0.05)


def test_a_closed_stream_ends_the_read(pipe) -> None:
    lines, write = pipe
    write.write(b'{"id": 1}\n')
    write.close()
    assert lines.answer(1, timeout=1) == {"id": 1}
    with pytest.raises(EOFError):
        lines.line(timeout=1)

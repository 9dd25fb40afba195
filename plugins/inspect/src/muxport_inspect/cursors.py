"""Watch cursors (docs/runs-and-waits.md): where a reader left a pane, as a short opaque
signed string.

A cursor remembers the pane, the pane's process (a respawned pane has a new one),
the absolute row of the pane's cursor line when it was issued (``mark``: history
size + cursor row) and hashes of the last finished lines delivered (the anchor).
The next look finds the anchor again in the pane's lines and delivers what follows
it; when the anchor is gone (cleared pane, history outran the reader) the answer is
discontinuous instead of stitching unrelated screens. The signature (HMAC with a key
made once per server) keeps clients from forging or editing positions.

``LAST`` ("last") names the newest cursor this server answered for the pane: a model reads the
text block, which leaves cursors out (docs/answers.md), and continues from its last look.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from muxport import InvalidArgument, Toolbox

ANCHOR_LINES = 4
HASH_BYTES = 4
MAC_BYTES = 9
LAST = "last"
KEPT_PANES = 1024  # panes whose newest cursor is remembered, the oldest look forgotten first
OMIT = "omit the cursor to take a new baseline (capture_since or wait_for_text without cursor)"


def line_hash(line: str) -> str:
    # 32 bits: an anchor is up to 4 consecutive lines, and the cursor must stay short
    return hashlib.blake2b(
        line.encode("utf-8", "surrogatepass"), digest_size=HASH_BYTES
    ).hexdigest()


@dataclass(frozen=True)
class CursorState:
    pane_id: str
    pane_pid: int
    mark: int
    anchors: tuple[str, ...]
    unfinished: str = ""  # hash of the cursor's line, which the anchor does not cover


def issue(
    pane_id: str, pane_pid: int, mark: int, delivered: Sequence[str], cursor_line: str = ""
) -> CursorState:
    """The state after delivering up to ``delivered`` (the finished lines, newest last)."""
    tail = delivered[-ANCHOR_LINES:] if delivered else []
    return CursorState(
        pane_id, pane_pid, mark, tuple(line_hash(line) for line in tail), line_hash(cursor_line)
    )


def _varint(value: int) -> bytes:
    if value < 0:
        raise ValueError("cursor fields are never negative")
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]  # IndexError on a short body: not a cursor
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at
        if shift > 63:
            raise ValueError("varint too long")


class Signer(Toolbox):
    """Signs and checks cursors with a key that lives as long as this server.

    A cursor is ``c2.`` and the URL-safe base64 of a compact body (pane number, pane
    pid, mark, up to 4 anchor hashes and the cursor line's hash, as varints and raw
    bytes) followed by a 72-bit HMAC: at most 63 characters, nothing a client can read
    or edit, and no state kept on the server.
    """

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key or secrets.token_bytes(32)
        self.newest: dict[str, str] = {}  # pane id -> the newest cursor issued for it

    def resolve(self, cursor: str | None, pane_id: str) -> str | None:
        """The cursor a call named: ``"last"`` is the newest answered for ``pane_id`` (None,
        a baseline, when this server never looked at it)."""
        return self.newest.get(pane_id) if cursor == LAST else cursor

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self.key, body, hashlib.sha256).digest()[:MAC_BYTES]

    def encode(self, state: CursorState) -> str:
        anchors = [bytes.fromhex(a) for a in state.anchors[-ANCHOR_LINES:]]
        flags = len(anchors) | (0x80 if state.unfinished else 0)
        body = (
            _varint(int(state.pane_id.lstrip("%")))
            + _varint(state.pane_pid)
            + _varint(state.mark)
            + bytes([flags])
            + b"".join(anchors)
            + (bytes.fromhex(state.unfinished) if state.unfinished else b"")
        )
        return "c2." + base64.urlsafe_b64encode(body + self._mac(body)).rstrip(b"=").decode()

    def remember(self, pane_id: str, token: str | None) -> None:
        """``token`` was answered for ``pane_id``: what ``"last"`` names from now on. Only an
        answer moves it, so a failed or cancelled call skips no line the model never got."""
        if token is None:
            return
        self.newest.pop(pane_id, None)  # re-inserted last: the newest answer
        self.newest[pane_id] = token
        if len(self.newest) > KEPT_PANES:
            del self.newest[next(iter(self.newest))]

    def decode(self, token: str, pane_id: str, pane_pid: int) -> CursorState:
        """The state of ``token`` for ``pane_id`` now running ``pane_pid``, or a tool error."""
        prefix, _, text = token.partition(".")
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except ValueError:
            raw = b""
        # base64's spare low bits: only the one spelling this server wrote is a cursor
        canonical = base64.urlsafe_b64encode(raw).rstrip(b"=").decode() == text
        if prefix != "c2" or len(raw) <= MAC_BYTES or not canonical:
            raise InvalidArgument(f"that is not a muxport cursor; {OMIT}", code="invalid_cursor")
        body, mac = raw[:-MAC_BYTES], raw[-MAC_BYTES:]
        if not hmac.compare_digest(self._mac(body), mac):
            raise InvalidArgument(
                "this cursor was not issued by this muxport server (edited, from another server, "
                f"or from before a restart); {OMIT}",
                code="invalid_cursor",
            )
        state = _parse(body)
        if state.pane_id != pane_id:
            raise InvalidArgument(
                f"this cursor belongs to pane {state.pane_id}, not {pane_id}; pass the cursor "
                f"{pane_id} returned, or {OMIT}",
                code="invalid_cursor",
            )
        if state.pane_pid != pane_pid:
            raise InvalidArgument(
                f"pane {pane_id} was respawned since this cursor was issued (its process "
                f"changed from {state.pane_pid} to {pane_pid}), so its lines are not the ones "
                f"the cursor remembers; {OMIT}",
                code="stale_cursor",
            )
        return state


def _parse(body: bytes) -> CursorState:
    """A signed body back into its state (it was made by ``encode``: the MAC says so)."""
    pane, at = _read_varint(body, 0)
    pid, at = _read_varint(body, at)
    mark, at = _read_varint(body, at)
    flags = body[at]
    count, at = flags & 0x7F, at + 1
    anchors = tuple(body[at + i * HASH_BYTES : at + (i + 1) * HASH_BYTES].hex()
                    for i in range(count))
    at += count * HASH_BYTES
    unfinished = body[at : at + HASH_BYTES].hex() if flags & 0x80 else ""
    return CursorState(f"%{pane}", pid, mark, anchors, unfinished)


def find_anchor(
    hashes: Sequence[str], anchors: Sequence[str], expected_end: int | None
) -> int | None:
    """Index of the last anchor line in ``hashes``, or None when the anchor is gone.

    Identical lines can make the anchor appear several times: prefer the latest
    occurrence ending at or before ``expected_end`` (where row arithmetic says it
    should be; wrapped lines only move it earlier), else the latest one.
    """
    k = len(anchors)
    if k == 0:
        return None
    ends = [
        i + k - 1
        for i in range(len(hashes) - k + 1)
        if hashes[i] == anchors[0] and list(hashes[i : i + k]) == list(anchors)
    ]
    if not ends:
        return None
    if expected_end is not None:
        before = [end for end in ends if end <= expected_end]
        if before:
            return before[-1]
    return ends[-1]

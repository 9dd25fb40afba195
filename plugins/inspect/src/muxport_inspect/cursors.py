"""Watch cursors (docs/runs-and-waits.md): where a reader left a pane, as an opaque signed string.

A cursor remembers the pane, the pane's process (a respawned pane has a new one),
the absolute row of the pane's cursor line when it was issued (``mark``: history
size + cursor row) and hashes of the last finished lines delivered (the anchor).
The next look finds the anchor again in the pane's lines and delivers what follows
it; when the anchor is gone (cleared pane, history outran the reader) the answer is
discontinuous instead of stitching unrelated screens. The signature (HMAC with a key
made once per server) keeps clients from forging or editing positions.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from muxport import InvalidArgument, Toolbox

ANCHOR_LINES = 4
OMIT = "omit the cursor to take a new baseline (capture_since or wait_for_text without cursor)"


def line_hash(line: str) -> str:
    return hashlib.blake2b(line.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


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


class Signer(Toolbox):
    """Signs and checks cursors with a key that lives as long as this server."""

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key or secrets.token_bytes(32)

    def _mac(self, body: bytes) -> str:
        return hmac.new(self.key, body, hashlib.sha256).hexdigest()[:32]

    def encode(self, state: CursorState) -> str:
        payload = {
            "p": state.pane_id,
            "i": state.pane_pid,
            "m": state.mark,
            "a": list(state.anchors),
            "u": state.unfinished,
        }
        body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).rstrip(
            b"="
        )
        return f"c1.{body.decode()}.{self._mac(body)}"

    def decode(self, token: str, pane_id: str, pane_pid: int) -> CursorState:
        """The state of ``token`` for ``pane_id`` now running ``pane_pid``, or a tool error."""
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != "c1":
            raise InvalidArgument(f"that is not a muxport cursor; {OMIT}", code="invalid_cursor")
        body = parts[1].encode()
        if not hmac.compare_digest(self._mac(body), parts[2]):
            raise InvalidArgument(
                "this cursor was not issued by this muxport server (edited, from another server, "
                f"or from before a restart); {OMIT}",
                code="invalid_cursor",
            )
        data = json.loads(base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4)))
        state = CursorState(
            str(data["p"]), int(data["i"]), int(data["m"]), tuple(data["a"]), str(data["u"])
        )
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

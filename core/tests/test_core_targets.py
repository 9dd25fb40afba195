"""Ids are checked exactly as their schema says: what a client's schema check refuses, the
server refuses too (a space, a line break, a leading zero), and what it accepts, the server
accepts as given, never read loosely into another id."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from muxport import Args, PaneId, SessionId, WindowId
from muxport._internal.targets import exact_id
from pydantic import ValidationError

pytestmark = pytest.mark.timeout(30)


class Ids(Args):
    pane_id: PaneId | None = None
    window_id: WindowId | None = None
    session_id: SessionId | None = None


SCHEMA = Ids.model_json_schema()
TRICKY = ["%0 ", "%0\n", "%00", " %0", "\t%0", "%0\r\n", "%+1", "%-1", "%٣", "%1٣", "%1_0", "%0x1",
          "%1234567890", "%0", "%7", "%123456789", "@00", "@1 ", "$01", "$1\n", "$0"]


def server_accepts(field: str, value: object) -> bool:
    try:
        Ids.model_validate({field: value})
    except ValidationError:
        return False
    return True


def schema_accepts(field: str, value: object) -> bool:
    """The schema's verdict as JSON Schema means it: ECMA-262, where ``^...$`` without the
    multiline flag spans the whole value (Python's ``$`` would also match before a final
    line break)."""
    (branch,) = [b for b in SCHEMA["properties"][field]["anyOf"] if b.get("type") == "string"]
    pattern = branch["pattern"]
    assert pattern.startswith("^") and pattern.endswith("$")
    return isinstance(value, str) and re.fullmatch(pattern[1:-1], value) is not None


FIELDS = {"%": "pane_id", "@": "window_id", "$": "session_id"}


@pytest.mark.parametrize("value", TRICKY)
def test_the_server_refuses_what_the_schema_refuses(value: str) -> None:
    field = FIELDS.get(value.strip()[:1], "pane_id")
    assert server_accepts(field, value) == schema_accepts(field, value), value


@pytest.mark.parametrize("value", ["%0 ", "%0\n", "%00"])
def test_the_ids_of_issue_21_are_refused_naming_the_listing(value: str) -> None:
    with pytest.raises(ValueError, match="call list_panes"):
        exact_id(value, "%")


@given(st.text(alphabet="%@$0123456789 \n\t+-_x\u0663", max_size=12))
def test_any_text_gets_the_same_verdict_from_both(value: str) -> None:
    for field in FIELDS.values():
        assert server_accepts(field, value) == schema_accepts(field, value), (field, value)


def test_an_accepted_id_is_kept_as_given() -> None:
    assert Ids(pane_id="%12", window_id="@0", session_id="$3").model_dump() == {
        "pane_id": "%12", "window_id": "@0", "session_id": "$3"}

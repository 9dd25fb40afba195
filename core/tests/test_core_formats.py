"""What each tmux version prints for one format, and that ``records`` reads it exactly.

The bytes below were printed by each version (list-panes -F and display-message -p give
the same) for a pane whose window was created with ``-n 'w\\037|é'``, whose title was
set with ``select-pane -T 't\\037|&é'`` and whose directory is PATH (a newline, a
backslash, a raw US byte, the separators, a tab and a byte that is not UTF-8). Why they
differ is in docs/tmux-facts.md, "Format output". No tmux runs here.
"""

from __future__ import annotations

import pytest
from muxport._internal.objects import Pane, fmt, head, parse, records, undo_name_dollar

pytestmark = pytest.mark.timeout(10)

FORMAT = fmt(("pane_id", "window_name", "pane_title", "pane_current_path"))
PATH = "/tmp/muxport-fmt/p\nq\\037\x1f|&é\t\ufffd"  # the 0xff byte read as U+FFFD
PRINTED = {
    # 3.2a prints what 3.3a does (measured 2026-12-03)
    "3.2a": b"\\%0|w\\\\037\\|\xc3\xa9|t\\\\037\\|\\&\xc3\xa9|"
    b"/tmp/muxport-fmt/p\nq\\\\037\x1f\\|\\&\xc3\xa9\t\xff&\n",
    "3.3a": b"\\%0|w\\\\037\\|\xc3\xa9|t\\\\037\\|\\&\xc3\xa9|"
    b"/tmp/muxport-fmt/p\nq\\\\037\x1f\\|\\&\xc3\xa9\t\xff&\n",
    # 3.4 and 3.5a: the octal pass over the line (US -> \037, 0xff -> \377)
    "3.4": b"\\%0|w\\\\037\\|\xc3\xa9|t\\\\037\\|\\&\xc3\xa9|"
    b"/tmp/muxport-fmt/p\nq\\\\037\\037\\|\\&\xc3\xa9\t\\377&\n",
    "3.5a": b"\\%0|w\\\\037\\|\xc3\xa9|t\\\\037\\|\\&\xc3\xa9|"
    b"/tmp/muxport-fmt/p\nq\\\\037\\037\\|\\&\xc3\xa9\t\\377&\n",
    "3.6a": b"\\%0|w\\\\037\\|\xc3\xa9|t\\\\037\\|\\&\xc3\xa9|"
    b"/tmp/muxport-fmt/p\nq\\\\037\x1f\\|\\&\xc3\xa9\t\xff&\n",
    # 3.7c+: names and titles are stored vis-escaped (clean_name): their backslash doubled
    "3.7c": b"\\%0|w\\\\\\\\037\\|\xc3\xa9|t\\\\\\\\037\\|\\&\xc3\xa9|"
    b"/tmp/muxport-fmt/p\nq\\\\037\x1f\\|\\&\xc3\xa9\t\xff&\n",
    # next-3.8: #{q:} escapes newline and tab too
    "next-3.8": b"\\%0|w\\\\\\\\037\\|\xc3\xa9|t\\\\\\\\037\\|\\&\xc3\xa9|"
    b"/tmp/muxport-fmt/p\\\nq\\\\037\x1f\\|\\&\xc3\xa9\\\t\xff&\n",
}
STORED = {"3.2a": "\\037", "3.3a": "\\037", "3.4": "\\037", "3.5a": "\\037", "3.6a": "\\037",
          "3.7c": "\\\\037", "next-3.8": "\\\\037"}


def test_the_format_is_what_the_fixtures_were_printed_for() -> None:
    assert FORMAT == "#{q:pane_id}|#{q:window_name}|#{q:pane_title}|#{q:pane_current_path}&"


@pytest.mark.parametrize("version", sorted(PRINTED))
def test_each_version_reads_back_exactly(version: str) -> None:
    stdout = PRINTED[version].decode("utf-8", "replace")  # as the transport decodes it
    stored = STORED[version]
    expected = ["%0", f"w{stored}|é", f"t{stored}|&é", PATH]
    assert records(stdout) == [expected]
    assert records(stdout * 3) == [expected] * 3  # list-panes: one line per pane
    assert head(stdout + "captured\\037 line\n") == (expected, "captured\\037 line\n")


def test_a_value_that_reads_like_an_escaped_separator_stays_text() -> None:
    # a title holding the text \037 (or \|) next to a real US byte, on 3.4 and on 3.6a
    assert records("a\\\\037\\037b\\\\\\|&\n") == [["a\\037\x1fb\\|"]]
    assert records("a\\\\037\x1fb\\\\\\|&\n") == [["a\\037\x1fb\\|"]]


def test_c_style_escapes_and_runs_of_bytes() -> None:
    # 3.4/3.5a: CR and the like as \r...; an invalid byte run decodes as one sequence
    assert records("\\r\\a\\b\\f\\v|\\303\\251\\377&\n") == [["\r\a\b\f\v", "é\ufffd"]]


def test_text_around_records_is_not_a_record() -> None:
    assert records("") == []
    assert records("on\n") == []
    assert records("x|y&\non\n") == [["x", "y"]]
    assert records("&\n&\n") == [[""], [""]]


# A title 'x$ab${c}$_d $1 \$e' as #{q:pane_title}: tmux 3.4 alone adds a backslash before
# each `$` that starts a name (utf8_strvis), on top of #{q:}'s.
DOLLARS = {
    "3.2a": b"x\\$ab\\${c}\\$_d\\ \\$1\\ \\\\\\$e&\n",
    "3.3a": b"x\\$ab\\${c}\\$_d\\ \\$1\\ \\\\\\$e&\n",
    "3.4": b"x\\\\$ab\\\\${c}\\\\$_d\\ \\$1\\ \\\\\\\\$e&\n",
    "3.5a": b"x\\$ab\\${c}\\$_d\\ \\$1\\ \\\\\\$e&\n",
}


@pytest.mark.parametrize("version", sorted(DOLLARS))
def test_a_dollar_before_a_name_reads_back_on_every_version(version: str) -> None:
    assert records(DOLLARS[version].decode()) == [["x$ab${c}$_d $1 \\$e"]]


def test_shell_quoted_output_loses_only_the_3_4_backslash() -> None:
    assert undo_name_dollar('a\\"b\\\\$c\\\\d') == 'a\\"b\\$c\\\\d'  # 3.4's show-environment
    assert undo_name_dollar('a\\"b\\$c\\\\d') == 'a\\"b\\$c\\\\d'  # everyone else's


@pytest.mark.parametrize(("printed", "read"), [("0", False), ("1", True), ("2", True), ("", False)])
def test_a_yes_or_no_field_is_any_number_but_0(printed: str, read: bool) -> None:
    """``pane_in_mode`` counts the modes stacked on a pane (view-mode, then copy-mode: 2);
    docs/tmux-facts.md, "Formats that count"."""
    values = ["%1", "0", "@1", "$1", "1", "bash", "/", "t", "80", "24", "7", "0", printed]
    assert parse(Pane, Pane.FIELDS, values).in_mode is read

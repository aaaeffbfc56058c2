"""#10.14: bulk input sends exactly what was written, or nothing.

Quoted CSV fields follow the csv module's rules (a quoted field may span
lines; the record is numbered by its first line), and a control character
anywhere in an id, edges included, makes the line invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bottui.ops.bulk.input import MAX_LINE_BYTES, BulkSource, InvalidLine, Subject, trim
from bottui.sandbox.server import SandboxServer
from tests.bulk.conftest import logged, visitor_ids
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope


def read(text: str) -> tuple[list[tuple[int, str | None, str | None]], dict[int, str]]:
    items = list(BulkSource.from_text(text).read())
    good = [(i.line, i.visitor_id, i.user_account_id) for i in items if isinstance(i, Subject)]
    bad = {i.line: i.reason for i in items if isinstance(i, InvalidLine)}
    return good, bad


@pytest.mark.parametrize(
    "control", ["\x85", "\x1e", "\x1c", "\x1f", "\x7f", "\x9b", "\x0b", "\x0c"]
)
@pytest.mark.parametrize("csv_form", [False, True])
def test_a_control_character_at_an_edge_is_refused(control: str, csv_form: bool) -> None:
    ids = [f"tr1{control}", f"{control}tr4", f"tr{control}5", "ok"]
    text = ("visitorId\n" if csv_form else "") + "".join(f"{i}\n" for i in ids)
    good, bad = read(text)
    first = 2 if csv_form else 1
    assert good == [(first + 3, "ok", None)]
    assert sorted(bad) == [first, first + 1, first + 2]
    assert all(f"U+{ord(control):04X}" in reason for reason in bad.values())


def test_trim_keeps_controls_and_strips_spaces() -> None:
    assert trim(" \t\u00a0\u3000vis\u2003\r\n") == "vis"
    assert trim("\x85vis\x1e") == "\x85vis\x1e"


def test_a_quoted_field_spanning_lines_is_one_record() -> None:
    text = 'visitorId,note\nvis_a,"two\nline"\n"multi\nline",x\nvis_b,\n'
    good, bad = read(text)
    # The note may span lines: vis_a is sent, numbered by its first line.
    assert good == [(2, "vis_a", None), (6, "vis_b", None)]
    # The id spanning lines 4-5 holds a line break: refused at line 4, and
    # nothing of line 5 ('line"') is sent.
    assert bad == {4: "visitor id: contains a control character (U+000A)"}


def test_crlf_and_doubled_quotes_in_a_spanning_record() -> None:
    text = 'visitorId,userAccountId,note\r\nvis_1,u1,"a ""b""\r\nc"\r\n"vis_2",u2,\r\n'
    good, bad = read(text)
    assert good == [(2, "vis_1", "u1"), (4, "vis_2", "u2")]
    assert bad == {}


def test_a_quote_never_closed_spoils_one_line_only() -> None:
    text = 'visitorId,note\n"vis_a,x\nvis_b,y\nvis_c,z\n'
    good, bad = read(text)
    assert bad == {2: "not a CSV row (a quoted field is not closed)"}
    assert good == [(3, "vis_b", None), (4, "vis_c", None)]


def test_a_quote_open_past_the_line_limit_spoils_one_line_only() -> None:
    filler = "".join(f"vis_{n},{'x' * 1000}\n" for n in range(MAX_LINE_BYTES // 1000 + 2))
    good, bad = read(f'visitorId,note\n"vis_a,x\n{filler}')
    assert bad == {2: "not a CSV row (a quoted field is not closed)"}
    assert good[0] == (3, "vis_0", None) and len(good) == MAX_LINE_BYTES // 1000 + 2


def test_a_spanning_record_stops_at_an_unreadable_line() -> None:
    data = b'visitorId,note\n"vis_a,x\n\xff\nvis_b,\n'
    source = BulkSource("bytes", sha256="0" * 64, candidate_lines=4, data=data)
    found = list(source.read())
    bad = {i.line: i.reason for i in found if isinstance(i, InvalidLine)}
    good = [(i.line, i.visitor_id) for i in found if isinstance(i, Subject)]
    assert bad[2] == "not a CSV row (a quoted field is not closed)"
    assert bad[3].startswith("not valid UTF-8")
    assert good == [(4, "vis_b")]


def test_what_arrives_is_what_was_written(
    env: SandboxServer, ids_file: Callable[..., Path]
) -> None:
    path = ids_file(
        [
            "visitorId,note",
            '"multi',
            'line",x',
            "tr1\x85,",
            "\x1etr4,",
            '"vis ""q""",a',
            "vis_ok,b",
        ]
    )
    r = cli("revoke", "--from-file", str(path), *scope(), "--json")
    assert r.code == 2, r.err  # invalid lines, every valid one sent
    doc = r.json()
    assert [line["line"] for line in doc["invalid"]] == [2, 4, 5]
    assert sorted(visitor_ids(logged(env))) == ['vis "q"', "vis_ok"]

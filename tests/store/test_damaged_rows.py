"""A damaged row of the local journal is read as its text, never a crash (#26's siblings).

The team store's readers skip a row they cannot read; the local journal, which
only bottui writes, keeps what is there: a JSON column that no longer parses
(or nests deeper than Python's recursion) is read back as its text, and the
views and ``--json`` show it as such.
"""

from __future__ import annotations

import json

from bottui.ops import journal_view
from bottui.store.journal import journal_rows
from bottui.store.journal.journal_records import JournalEntry
from bottui.store.journal.journal_rows import unpack_result
from bottui.store.journal.journal_timed import timed_event


def test_json_columns_that_do_not_parse_are_kept_as_text() -> None:
    deep = "[" * 5000
    assert journal_rows._load(deep) == deep
    assert journal_rows._load("not json {") == "not json {"
    assert unpack_result("{{", '["isActive"]') == "{{"
    assert unpack_result("[1, 2]", '["isActive"]') == "[1, 2]"  # the keys do not match
    assert unpack_result("[false]", '["isActive"]') == {"isActive": False}


def test_a_damaged_entry_is_shown_and_written_as_json() -> None:
    entry = JournalEntry(
        id=1, started_at="2026-11-24T03:00:00.000000Z", operator="x", pid=1, profile="p",
        base_url="b", operation="thresholds.set", account="a", project="p",
        target="not json {", request_body="[[", previous="zz", undo_of=None, run_id=None,
        item_key=None, finished_at=None, outcome=None, status=None, result="{{", error=None,
        duration_ms=None,
    )  # fmt: skip
    doc = json.loads(json.dumps(entry.to_json()))
    assert (doc["target"], doc["previous"], doc["result"]) == ("not json {", "zz", "{{")
    assert "not json {" in journal_view.line(entry)


def test_a_timed_event_that_is_not_json_reads_as_an_empty_detail() -> None:
    event = timed_event("o", (7, "schedule", "o:t7", "soon", "[" * 5000, "mallory", None))
    assert (event.event_id, event.at, event.detail, event.operator) == ("o:e7", 0, {}, "mallory")

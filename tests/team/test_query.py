"""The shared journal's query and cursor, without a server (#13)."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import pytest

from bottui.store.journal.journal_records import EntryQuery, RunId
from bottui.store.paging import Cursor
from bottui.store.team.page_query import decode_cursor, encode_cursor, from_entry_query


def test_a_local_query_carries_its_filters_and_the_run_origin() -> None:
    origin = uuid4()
    local = EntryQuery(project="p", outcomes=frozenset({"ok"}), run_id=RunId(7), unfinished=False)
    shared = from_entry_query(local, operator="bob", reason="INC", run_origin=origin)
    assert (shared.project, shared.outcomes, shared.run) == ("p", frozenset({"ok"}), (origin, 7))
    assert (shared.operator, shared.reason) == ("bob", "INC")


def test_cursors_round_trip_to_the_microsecond() -> None:
    moment = datetime(2026, 11, 24, 3, 12, 5, 123456, tzinfo=UTC)
    assert decode_cursor(encode_cursor(moment, 42)) == (moment, 42)
    with pytest.raises(ValueError):
        decode_cursor(Cursor("12"))

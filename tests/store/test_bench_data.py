"""The journal benchmarks' data is written the fast way into the journal's schema of today.

``tests/bench/journal_data.py`` writes millions of entries by SQL straight
into the journal's tables, and falls back to the store's API (about 70x
slower) for a schema it does not know; at v6 it fell back unnoticed and the
10M-entry benchmarks could not be made. A benchmark is code too: this fails
when the schema moves on without it.
"""

from __future__ import annotations

from pathlib import Path

from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import EntryQuery
from bottui.store.journal.journal_schema import SCHEMA
from tests.bench import journal_data


def test_the_bench_writes_the_current_schema_by_sql(tmp_path: Path) -> None:
    assert SCHEMA.version in journal_data.KNOWN_VERSIONS
    path = tmp_path / "journal.sqlite3"
    assert journal_data.make(path, 2000) == "sql"
    with Journal(path) as journal:
        page = journal.page(EntryQuery(), limit=3000)
        assert len(page.entries) == 2000 and page.next is None
        hot = journal.page(EntryQuery(project=journal_data.HOT_PROJECT), limit=10)
        assert {e.operation for e in hot.entries} == {"limiter.set-active", "thresholds.set"}
        unfinished = journal.page(EntryQuery(unfinished=True), limit=10)
        assert [e.id for e in unfinished.entries] == [8]  # entry i = 7: i % 100_003 == 7

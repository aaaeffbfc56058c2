"""Every journal filter is served by an index: no full scan, no temporary B-tree.

A first page must cost the same at 10,000,000 entries as at 10 (issue #12);
the figures are in tests/bench/journal_scale.py, this checks the cause
cheaply: SQLite's own plan of every query a page, a resume or an undo runs.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from bottui.store.journal import journal_query
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_query import (
    _AGAINS,
    _FIRSTS,
    _FIRSTS_IN_RANGE,
    _HAS_AGAIN,
    _RESULTS_IN_RANGE,
    _RESULTS_OF,
    _TEXT_AGAINS,
    _TEXT_FIRSTS,
    plans,
)
from bottui.store.journal.journal_records import EntryId, EntryQuery, RunId, StartRecord

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)
QUERIES = {
    "newest": EntryQuery(),
    "before": EntryQuery(before=EntryId(500)),
    "project": EntryQuery(project="p"),
    "operation": EntryQuery(operation="grant.revoke"),
    "profile": EntryQuery(profile="prod"),
    "account": EntryQuery(account="acc"),
    "outcome": EntryQuery(outcomes=frozenset({"ok"})),
    "outcome group": EntryQuery(outcomes=frozenset({"api-error", "network-error", "unknown"})),
    "unfinished": EntryQuery(unfinished=True),
    "run": EntryQuery(run_id=RunId(1)),
    "run unfinished": EntryQuery(run_id=RunId(1), unfinished=True),
    "since": EntryQuery(since=MOMENT),
    "until": EntryQuery(until=MOMENT),
    "since and until": EntryQuery(since=MOMENT, until=MOMENT),
    "project and since": EntryQuery(project="p", since=MOMENT),
    "project and outcome": EntryQuery(project="p", outcomes=frozenset({"ok"})),
    # The Journal screen past the runs it counted (ctrl+end, m): still along an index.
    "past a run": EntryQuery(skip_runs=frozenset({RunId(1)})),
    "profile past runs": EntryQuery(profile="prod", skip_runs=frozenset({RunId(1), RunId(2)})),
    "outcome past a run": EntryQuery(outcomes=frozenset({"ok"}), skip_runs=frozenset({RunId(1)})),
    "unfinished past a run": EntryQuery(unfinished=True, skip_runs=frozenset({RunId(1)})),
}
# Tables whose size grows with the journal: walking one whole is a full scan.
BIG = ("items", "results", "segments", "open_items", " e ", " o ", " s ", " u ")


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    path: Path = tmp_path_factory.mktemp("plans") / "journal.sqlite3"
    journal = Journal(path)
    entry = journal.start(
        profile="prod",
        base_url="u",
        operation="o",
        account="acc",
        project="p",
        target={},
        request_body=None,
    )
    journal.finish(entry, outcome="ok")
    journal.close()
    return sqlite3.connect(path)


def problems(
    conn: sqlite3.Connection, sql: str, params: list[object] | tuple[object, ...]
) -> list[str]:
    steps = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
    bad = [s for s in steps if "TEMP B-TREE" in s]
    bad += [s for s in steps if s.startswith("SCAN") and any(t in f"{s} " for t in BIG)]
    return bad


@pytest.mark.parametrize("name", list(QUERIES))
@pytest.mark.parametrize("outcomes_lead", [True, False])
def test_a_page_walks_an_index(conn: sqlite3.Connection, name: str, outcomes_lead: bool) -> None:
    selects = plans(QUERIES[name], 1000, 51, outcomes_lead=outcomes_lead)
    assert selects
    for sql, params in selects:
        assert problems(conn, sql, params) == [], (name, sql)


def test_resume_lookups_walk_indexes(conn: sqlite3.Connection) -> None:
    for sql, args in (
        (_FIRSTS, (b"k", 1, 1, 1)),
        (_AGAINS, (b"k", 1, 1, 1)),
        (_TEXT_FIRSTS, ('["k"]', 1)),
        (_TEXT_AGAINS, ('["k"]', 1)),
    ):
        assert problems(conn, sql, args) == []
        # One lookup per key asked, never a walk of the run's keys.
        steps = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, args)]
        assert any("(run_id=? AND item_key=?)" in step for step in steps), steps
    assert problems(conn, _FIRSTS_IN_RANGE, (1, 9, 1)) == []
    # A stretch of ids, never the run's whole index.
    (step,) = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + _FIRSTS_IN_RANGE, (1, 9, 1))]
    assert "INTEGER PRIMARY KEY (rowid>? AND rowid<?)" in step
    assert problems(conn, _HAS_AGAIN, (1,)) == []
    assert problems(conn, _RESULTS_IN_RANGE, (1, 9)) == []
    assert problems(conn, _RESULTS_OF, ("[1,5]",)) == []


@pytest.mark.parametrize("outcomes_lead", [True, False])
def test_combined_filters_give_the_same_entries_whichever_index_leads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outcomes_lead: bool
) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    run = journal.run(
        profile="prod", account="acc", project="big", input_sha256="c" * 64, operation="r"
    )
    with journal.batch(interval=0) as writer:
        for chunk in range(4):
            records = [
                StartRecord(
                    profile="prod",
                    base_url="u",
                    operation="r",
                    account="acc",
                    project="big",
                    target={"visitorId": f"v{chunk}-{n}"},
                    run_id=run,
                )
                for n in range(30)
            ]
            for n, entry_id in enumerate(writer.start_many(records)):
                word = "api-error" if chunk == 2 and n % 7 == 0 else "withdrawn"
                writer.finish(entry_id, outcome=word)
    for n in range(6):
        entry_id = journal.start(
            profile="prod", base_url="u", operation="s", account="acc",
            project="big" if n % 2 else "small", target={"n": n}, request_body=None,
        )  # fmt: skip
        journal.finish(entry_id, outcome="ok" if n % 3 else "api-error")
    everything = journal.entries()
    monkeypatch.setattr(journal_query, "outcomes_are_fewer", lambda *_: outcomes_lead)
    for project, words in (
        ("big", {"api-error"}),
        ("big", {"ok", "withdrawn"}),
        ("small", {"api-error"}),
        ("big", {"never"}),
    ):
        query = EntryQuery(project=project, outcomes=frozenset(words))
        want = [e for e in everything if e.project == project and e.outcome in words]
        with sqlite3.connect(journal.path) as conn:
            assert journal_query.read_page(conn, query, None, None) == want, (project, words)
            assert journal_query.read_page(conn, query, None, 3) == want[:3]
    journal.close()


@pytest.mark.parametrize(
    "query",
    [
        EntryQuery(),
        EntryQuery(profile="prod", project="p"),
        EntryQuery(outcomes=frozenset({"ok", "api-error"})),
        EntryQuery(unfinished=True),
    ],
)
def test_the_rest_of_a_run_is_counted_along_the_runs_segments(
    conn: sqlite3.Connection, query: EntryQuery
) -> None:
    """What the Journal screen counts instead of reading a run's rest page by page."""
    wanted = msgspec.structs.replace(query, run_id=RunId(1))
    for sql, params in journal_query._selects(conn, wanted, 1000, -1):
        assert problems(conn, sql, params) == [], sql
    selects = journal_query._selects(
        conn, msgspec.structs.replace(query, run_id=RunId(1)), 1000, -1
    )
    steps = [
        row[3]
        for sql, params in selects
        for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params)
    ]
    assert any("segments_by_run" in step or "open_by_run" in step for step in steps), steps

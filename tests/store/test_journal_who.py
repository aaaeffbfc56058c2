"""Who and why (issue #13): operator, host, reason and event id of every entry; their filters."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bottui.store.journal import journal_query
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import EntryQuery, StartRecord
from tests.store.test_journal_plans import problems

HOSTILE = "\x1b]52;c;AAAA\x07[red]x[/red] '; DROP TABLE segments; -- " + "漢" * 220


def change(journal: Journal, n: int, **who: str | None) -> int:
    return journal.start(
        profile="prod",
        base_url="u",
        operation="limiter.set-active",
        account="acc",
        project="p",
        target={"rate_limiter_id": f"rl-{n}"},
        request_body={"isActive": False},
        **who,
    )


def test_operator_reason_and_host_round_trip_exactly(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3", operator="default@box", host="box")
    plain = change(journal, 0)
    hostile = change(journal, 1, operator=HOSTILE, reason=HOSTILE)
    blank = change(journal, 2, reason="   ")
    entries = {e.id: e for e in journal.entries()}
    assert (entries[plain].operator, entries[plain].reason) == ("default@box", None)
    assert (entries[hostile].operator, entries[hostile].reason) == (HOSTILE, HOSTILE)
    assert entries[blank].reason is None  # a blank reason is no reason
    assert {e.host for e in entries.values()} == {"box"}
    assert len({e.event_id for e in entries.values()}) == 3
    assert all(e.event_id == f"{e.origin}:{e.id}" for e in entries.values())
    as_json = entries[hostile].to_json()
    assert as_json["reason"] == HOSTILE and as_json["event_id"] == entries[hostile].event_id
    journal.close()


def test_filters_by_operator_exactly_and_reason_case_insensitively(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3", operator="me@box")
    made = [
        change(journal, 0, operator="alice", reason="INC-4312 Credential stuffing"),
        change(journal, 1, operator="bob", reason="inc-4312 follow-up"),
        change(journal, 2, operator="alice"),
        change(journal, 3, operator="Alice", reason="ÉTÉ maintenance"),
        change(journal, 4, operator="alice", reason="unrelated"),
    ]
    by = journal.entries
    with sqlite3.connect(journal.path) as conn:

        def ids(query: EntryQuery, limit: int | None = None) -> list[int]:
            return [e.id for e in journal_query.read_page(conn, query, None, limit)]

        assert ids(EntryQuery(operator="alice")) == [made[4], made[2], made[0]]
        assert ids(EntryQuery(reason="INC-4312")) == [made[1], made[0]]
        assert ids(EntryQuery(reason="été")) == [made[3]]  # Unicode case folding
        assert ids(EntryQuery(reason="nothing like it")) == []
        assert ids(EntryQuery(operator="alice", reason="inc")) == [made[0]]
        assert ids(EntryQuery(reason="4312", project="p")) == [made[1], made[0]]
        assert ids(EntryQuery(reason="4312"), limit=1) == [made[1]]
        assert ids(EntryQuery(reason="e", outcomes=frozenset({"ok"}))) == []
    assert len(by()) == 5
    journal.close()


def test_a_bulk_run_stores_who_and_why_once_per_segment(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3", operator="me@box", host="box")
    run = journal.run(profile="p", account="a", project="p", input_sha256="a" * 64, operation="r")
    with journal.batch(interval=0) as writer:
        records = [
            StartRecord(
                profile="p",
                base_url="u",
                operation="r",
                account="a",
                project="p",
                target={"visitorId": f"v{n}"},
                run_id=run,
                operator="alice",
                reason=HOSTILE,
            )
            for n in range(500)
        ]
        ids = writer.start_many(records)
        for entry_id in ids:
            writer.finish(entry_id, outcome="withdrawn")
    with sqlite3.connect(journal.path) as conn:
        assert conn.execute("SELECT count(*) FROM segments").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM reasons").fetchone()[0] == 1
        assert conn.execute("SELECT host, operator FROM segments").fetchone() == ("box", "alice")
    entries = journal.entries()
    assert len(entries) == 500
    assert {(e.operator, e.reason, e.host) for e in entries} == {("alice", HOSTILE, "box")}
    assert len({e.event_id for e in entries}) == 500
    journal.close()


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.Connection:
    path: Path = tmp_path_factory.mktemp("who") / "journal.sqlite3"
    journal = Journal(path)
    change(journal, 0, operator="alice", reason="x")
    journal.close()
    return sqlite3.connect(path)


@pytest.mark.parametrize(
    "query",
    [
        EntryQuery(operator="alice"),
        EntryQuery(reason="INC"),
        EntryQuery(operator="alice", reason="INC"),
        EntryQuery(project="p", reason="INC"),
        EntryQuery(reason="INC", outcomes=frozenset({"ok"})),
        EntryQuery(reason="INC", unfinished=True),
        EntryQuery(reason="INC", since=datetime(2026, 1, 1, tzinfo=UTC)),
        EntryQuery(operator="alice", outcomes=frozenset({"ok"})),
    ],
)
@pytest.mark.parametrize("outcomes_lead", [True, False])
def test_operator_and_reason_pages_walk_an_index(
    conn: sqlite3.Connection, query: EntryQuery, outcomes_lead: bool
) -> None:
    selects = journal_query.plans(query, 1000, 51, outcomes_lead=outcomes_lead, reasons=[1, 2])
    assert selects
    for sql, params in selects:
        assert problems(conn, sql, params) == [], sql


def test_a_refused_start_forgets_the_reason_it_added(tmp_path: Path) -> None:
    """A started record refused (its undo_of names nothing) rolls back the reason it
    added to the dictionary; the next entry with that reason still keeps it."""
    journal = Journal(tmp_path / "j.sqlite3")
    with pytest.raises(ValueError, match="names nothing"):
        journal.start(
            profile="prod",
            base_url="u",
            operation="limiter.set-active",
            account="acc",
            project="p",
            target={"rate_limiter_id": "rl-0"},
            reason="INC-7 stuffing",
            undo_of=4242,
        )
    kept = change(journal, 1, reason="INC-7 stuffing")
    found = journal.entry(kept)
    assert found is not None and found.reason == "INC-7 stuffing"
    journal.close()

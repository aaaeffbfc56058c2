"""Journals of earlier versions are migrated in place on first use, and read back exactly."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
from msgspec.structs import replace

from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import EntryQuery, JournalEntry, RunId
from bottui.store.journal.journal_schema import (
    SCHEMA,
    STEPS,
    TABLES_V2,
    TABLES_V3,
    V1,
    VERSION,
    append_only,
)
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.sqlite_helpers import Database, Schema, Step
from bottui.store.store_errors import JournalUnavailable
from tests.store.journal_v01 import APPLICATION_ID, build

ROOT = Path(__file__).resolve().parents[2]


def pages(path: Path, query: EntryQuery, limit: int = 3) -> list[JournalEntry]:
    """Every entry matching ``query``, read page by page through the async store."""

    async def go() -> list[JournalEntry]:
        store = SqliteJournalStore(path)
        found: list[JournalEntry] = []
        page = await store.page(query, limit=limit)
        found += page.entries
        while page.next is not None:
            page = await store.page(query, limit=limit, cursor=page.next)
            found += page.entries
        await store.close()
        return found

    return asyncio.run(go())


def without_origin(entries: list[JournalEntry]) -> list[JournalEntry]:
    """Entries as an older bottui read them: version 4 adds the file's origin."""
    return [replace(e, origin=None) for e in entries]


def schema_of(path: Path) -> set[tuple[str, str]]:
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    conn.close()
    return {(name, " ".join(sql.split())) for name, sql in rows}


def test_a_v01_journal_is_migrated_and_read_back_identically(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    before = build(path)
    assert len(before) == 23 and sum(e.unfinished for e in before) == 3
    journal = Journal(path)
    after = journal.entries()
    assert without_origin(after) == before
    # Every old entry has an event id now: one origin for the file, unique ids.
    assert len({e.origin for e in after}) == 1 and after[0].origin is not None
    assert len({e.event_id for e in after}) == len(after)
    assert all(e.host is None and e.reason is None for e in after)
    for expected in before:
        found = journal.entry(expected.id)
        assert found is not None and replace(found, origin=None) == expected
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"entries", "outcomes"}.isdisjoint(names)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM items")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE runs SET project = 'x'")
    conn.close()

    # Every filter gives what filtering v0.1's rows gives.
    def want(test: object) -> list[JournalEntry]:
        return [e for e in before if test(e)]  # type: ignore[operator]

    moment = datetime(2025, 6, 1, 0, 1, 40, tzinfo=UTC)
    cases = [
        (EntryQuery(project="proj-a"), want(lambda e: e.project == "proj-a")),
        (EntryQuery(operation="thresholds.set"), want(lambda e: e.operation == "thresholds.set")),
        (EntryQuery(profile="staging"), want(lambda e: e.profile == "staging")),
        (EntryQuery(unfinished=True), want(lambda e: e.unfinished)),
        (EntryQuery(run_id=RunId(1)), want(lambda e: e.run_id == 1)),
        (
            EntryQuery(run_id=RunId(1), unfinished=True),
            want(lambda e: e.run_id == 1 and e.unfinished),
        ),
        (
            EntryQuery(outcomes=frozenset({"withdrawn", "api-error"})),
            want(lambda e: e.outcome in ("withdrawn", "api-error")),
        ),
        (EntryQuery(since=moment), want(lambda e: e.started_at >= "2025-06-01T00:01:40")),
        (
            EntryQuery(until=moment),
            want(lambda e: e.started_at < "2025-06-01T00:01:40" or e.started_at[10] == " "),
        ),
    ]
    for query, matching in cases:
        assert without_origin(pages(path, query)) == matching, query
    # The undo chain and the resume view survive.
    by_id = {e.id: e for e in before}
    # The newest limiter change of prod that may have changed something: the odd row.
    undoable = journal.last_undoable("prod", "limiter").entry
    assert undoable is not None and replace(undoable, origin=None) == by_id[6]
    undoable = journal.last_undoable("staging", "thresholds").entry
    assert undoable is not None and replace(undoable, origin=None) == by_id[4]
    assert by_id[3].undo_of == 2 and by_id[2].undo_of == 1
    states = journal.item_states(1, [f"{i:032x}" for i in range(12)])
    assert states[f"{5:032x}"].settled is False
    assert states[f"{5:032x}"].last_outcome == "unknown-retried"
    assert states[f"{5:032x}"].unfinished == (6 + 6,)  # the first attempt stays unfinished
    assert states[f"{1:032x}"].settled and not states[f"{3:032x}"].settled
    default_keys = [e.item_key for e in before if e.run_id == 2]
    assert all(journal.item_states(2, [k])[k].settled for k in default_keys if k)
    assert journal.settled_items(2) == set(default_keys)
    journal.close()


def test_a_migrated_journal_has_the_schema_of_a_new_one(tmp_path: Path) -> None:
    old, new = tmp_path / "old.sqlite3", tmp_path / "new.sqlite3"
    conn = sqlite3.connect(old, isolation_level=None)
    for statement in V1:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute("PRAGMA user_version=1")
    conn.close()
    Journal(old).entries()  # reading migrates too
    Journal(new).start(
        profile="p",
        base_url="u",
        operation="o",
        account="a",
        project="p",
        target={},
        request_body=None,
    )
    assert schema_of(old) == schema_of(new)


def test_a_version_2_journal_gains_checkpoints_and_reads_back_identically(
    tmp_path: Path,
) -> None:
    path, new = tmp_path / "journal.sqlite3", tmp_path / "new.sqlite3"
    before = build(path)
    v2 = Schema(
        "journal", APPLICATION_ID, 2, (V1[0], *TABLES_V2, *append_only(("runs",))), STEPS[:1]
    )
    database = Database(path, v2, unavailable=JournalUnavailable)
    with database.read():
        pass
    database.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'run_checkpoints'").fetchall()
    conn.close()
    journal = Journal(path)
    assert without_origin(journal.entries()) == before
    assert journal.settled_prefix(2) is None  # a run journaled before checkpoints
    journal.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == VERSION == 6
    conn.execute("INSERT INTO run_checkpoints (run_id, settled_line, at) VALUES (2, 5, 0)")
    conn.commit()
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM run_checkpoints")
    conn.close()
    assert Journal(path).settled_prefix(2) == 5
    Journal(new).run(profile="p", account="a", project="p", input_sha256="0" * 64, operation="o")
    # v0.1's runs table said AUTOINCREMENT (both forms are version 1): the rest is equal.
    first_release = {"runs", "sqlite_sequence"}
    assert {r for r in schema_of(path) if r[0] not in first_release} == {
        r for r in schema_of(new) if r[0] not in first_release
    }


def test_a_journal_of_a_newer_bottui_is_refused_and_never_written(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path)
    journal.start(
        profile="p",
        base_url="u",
        operation="o",
        account="a",
        project="p",
        target={},
        request_body=None,
    )
    journal.close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={VERSION + 1}")
    conn.commit()
    conn.close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    later = Journal(path)
    for attempt in (
        later.entries,
        lambda: later.start(
            profile="p",
            base_url="u",
            operation="o",
            account="a",
            project="p",
            target={},
            request_body=None,
        ),
    ):
        with pytest.raises(JournalUnavailable) as caught:
            attempt()
        assert "newer bottui" in caught.value.title
        assert f"version {VERSION + 1}" in caught.value.details
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_a_failed_migration_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    build(path)

    def half_then_fail(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half (x)")
        conn.execute("DROP TABLE outcomes")
        raise sqlite3.OperationalError("disk I/O error")

    broken = Schema(
        "journal", APPLICATION_ID, VERSION, SCHEMA.statements, (Step(2, half_then_fail),)
    )
    database = Database(path, broken, unavailable=JournalUnavailable)
    with pytest.raises(JournalUnavailable), database.read():
        pass
    database.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert "outcomes" in names and "half" not in names
    conn.close()
    assert len(Journal(path).entries()) == 23  # and the real migration still works


_OPEN_AND_WRITE = textwrap.dedent(
    """
    import sys
    from bottui.store.journal.journal_file import Journal
    journal = Journal(sys.argv[1])
    sys.stdin.readline()  # both start together
    count = len(journal.entries())
    journal.start(profile="p", base_url="u", operation="o", account="a", project="p",
                  target={"n": sys.argv[2]}, request_body=None)
    print(count)
    """
)


def test_two_processes_opening_an_old_journal_at_once_migrate_it_once(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    before = build(path)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_AND_WRITE, str(path), str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for n in range(2)
    ]
    for child in children:
        assert child.stdin is not None
        child.stdin.write("\n")
        child.stdin.flush()
    results = [child.communicate(timeout=300) for child in children]
    assert [child.returncode for child in children] == [0, 0], results
    # Each saw every old entry (and perhaps the other's new one), none lost.
    assert sorted(int(out) for out, _ in results) in ([23, 23], [23, 24])
    after = Journal(path).entries()
    assert len(after) == 25 and without_origin(after[2:]) == before
    assert len({e.origin for e in after}) == 1  # one migration, one origin


def test_a_version_3_journal_gains_event_ids_and_who_and_why(tmp_path: Path) -> None:
    path, new = tmp_path / "journal.sqlite3", tmp_path / "new.sqlite3"
    before = build(path)
    v3 = Schema(
        "journal",
        APPLICATION_ID,
        3,
        (V1[0], *TABLES_V2, *append_only(("runs",)), *TABLES_V3),
        STEPS[:2],
    )
    database = Database(path, v3, unavailable=JournalUnavailable)
    with database.read():
        pass
    database.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()
    journal = Journal(path, operator="me@here", host="here")
    old = journal.entries()
    assert without_origin(old) == before
    origin = old[0].origin
    assert origin is not None and len(origin) == 36 and origin[14] == "4"
    hostile = "INC-4312 \x1b[31m[b]red[/b]\x00 '; DROP TABLE items; -- " + "é" * 200
    added = journal.start(
        profile="prod",
        base_url="u",
        operation="limiter.set-active",
        account="acc",
        project="proj-a",
        target={"rate_limiter_id": "rl"},
        request_body=None,
        operator="[bold]alice[/]\x07",
        reason=hostile,
    )
    found = journal.entry(added)
    assert found is not None
    assert (found.operator, found.reason, found.host) == ("[bold]alice[/]\x07", hostile, "here")
    assert found.event_id == f"{origin}:{added}"
    assert without_origin(journal.entries()[1:]) == before  # history untouched
    assert journal.entries(limit=1)[0].id == added
    journal.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == VERSION == 6
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    for statement in (
        "UPDATE journal_origin SET origin = 'x'",
        "DELETE FROM journal_origin",
        "DELETE FROM reasons",
        "UPDATE segments SET reason = NULL",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(statement)
    conn.close()
    # Opened again, the origin stays: event ids never change.
    again = Journal(path).entry(added)
    assert again is not None and again.event_id == found.event_id
    Journal(new).run(profile="p", account="a", project="p", input_sha256="0" * 64, operation="o")
    first_release = {"runs", "sqlite_sequence"}
    assert {r for r in schema_of(path) if r[0] not in first_release} == {
        r for r in schema_of(new) if r[0] not in first_release
    }
    assert Journal(new).entries() == []
    fresh = sqlite3.connect(new)
    (other,) = fresh.execute("SELECT origin FROM journal_origin").fetchone()
    fresh.close()
    assert other != origin  # each file its own origin

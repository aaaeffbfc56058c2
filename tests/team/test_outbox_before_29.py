"""Data moves with the code (#29): an outbox written by the version before opens and pushes.

``tests/fixtures/v_before_29/`` holds a journal and a facts' file written by bottui
as it was before #29 (main at 3ecd789; ``make_team_fixtures.py`` beside them wrote them, its
``team-manifest.json`` says what waits in them). Here they are opened with today's
:class:`~bottui.ops.team_push.TeamSync` against the real PostgreSQL of the fixture:
every row that waited arrives, nothing the older bottui had pushed is pushed
again, and nothing is left waiting.

The team store's schema is the one the previous version writes and reads
(version 6, unchanged by #29): a teammate still on it during a rollout reads and
writes the store this version pushed to.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg

from bottui.ops.team_push import TeamSync
from bottui.store.journal.journal_records import EntryId
from bottui.store.journal.journal_store import SqliteJournalStore
from bottui.store.team.outbox import Outbox
from bottui.store.team.pg_schema import SCHEMA_VERSION
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.push_events import entry_event, outcome_event

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "v_before_29"
MANIFEST: dict[str, Any] = json.loads((FIXTURES / "team-manifest.json").read_text())


def copied(into: Path, store: str) -> Path:
    """The fixture's files in ``into``, their store re-keyed to ``store`` (the fixture
    was written for a store URL of its own; this test's differs); the journal file."""
    for source, name, tables in (
        ("team-journal.sqlite3", "journal.sqlite3", ("team_push", "team_open", "timed_push")),
        ("team-facts.sqlite3", "team-facts.sqlite3", ("facts",)),
    ):
        shutil.copy(FIXTURES / source, into / name)
        conn = sqlite3.connect(into / name)
        with conn:
            for table in tables:
                conn.execute(f"UPDATE {table} SET store = ?", (store,))
        conn.close()
    return into / "journal.sqlite3"


async def pushed_before(journal: Path, store: TeamStore) -> UUID:
    """What the older bottui had pushed, put in the store as it pushed it (entry 2 with
    its outcome, entry 3 before it had one); the journal's origin."""
    local = SqliteJournalStore(journal)
    try:
        two, three = [await local.entry(EntryId(i)) for i in MANIFEST["pushed_entries"]]
    finally:
        await local.close()
    assert two is not None and three is not None and two.origin is not None
    origin = UUID(two.origin)
    done = outcome_event(two, origin)
    assert done is not None
    await store.push([entry_event(two, origin), done, entry_event(three, origin)])
    return origin


def shared(admin_url: str, origin: UUID) -> dict[str, Any]:
    """What the store holds of this journal and these facts."""
    with psycopg.connect(admin_url) as conn:
        entries = conn.execute(
            "SELECT e.local_id, o.outcome FROM bottui.journal_entries AS e"
            " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
            " WHERE e.origin = %s ORDER BY e.local_id",
            (origin,),
        ).fetchall()
        timed = conn.execute(
            "SELECT local_id, kind FROM bottui.timed_events WHERE origin = %s ORDER BY local_id",
            (origin,),
        ).fetchall()
        facts = conn.execute(
            "SELECT item || '/' || field, value, origin::text FROM bottui.inventory_facts"
        ).fetchall()
        (version,) = conn.execute("SELECT max(version) FROM bottui.schema_versions").fetchone()
    return {"entries": entries, "timed": timed, "facts": facts, "version": version}


async def test_an_outbox_written_before_29_pushes_every_row_that_waited(
    tmp_path: Path, team_store: TeamStore, pg_admin_url: str
) -> None:
    key = team_store.target.keyring_username
    journal = copied(tmp_path, key)
    origin = await pushed_before(journal, team_store)
    team = TeamSync(journal, team_store)
    try:
        state = await team.sync()
        assert state.down is None, state.down
        assert state.waiting == 0
    finally:
        await team.close()
    found = shared(pg_admin_url, origin)
    # 2 and 3 as the older bottui pushed them; 3's late outcome, 4 with its outcome and
    # 5 (none yet) by this version; 1 was journaled before the store (a backfill's).
    assert found["entries"] == [(2, "ok"), (3, "failed"), (4, "unknown"), (5, None)]
    # The schedule had gone to another store before; the extend and cancel waited.
    assert found["timed"] == [(2, "extend"), (3, "cancel")]
    assert {(item, value) for item, value, _ in found["facts"]} == set(
        MANIFEST["waiting_facts"].items()
    )
    assert {who for _, _, who in found["facts"]} == {MANIFEST["facts_origin"]}
    outbox = Outbox(journal)
    try:
        assert outbox.pending(key).empty
        assert outbox.since_id(key) == MANIFEST["registered_after"]
    finally:
        outbox.close()


def test_the_team_store_schema_is_the_one_the_previous_version_writes() -> None:
    # The previous version refuses any other (SchemaTooNew / SchemaMissing): a rollout
    # in which teammates upgrade one by one needs this to hold (docs/team.md).
    assert SCHEMA_VERSION == MANIFEST["pg_schema_version"] == 6


async def test_the_store_pushed_to_is_at_the_previous_versions_schema(
    tmp_path: Path, team_store: TeamStore, pg_admin_url: str
) -> None:
    journal = copied(tmp_path, team_store.target.keyring_username)
    origin = await pushed_before(journal, team_store)
    assert shared(pg_admin_url, origin)["version"] == MANIFEST["pg_schema_version"]

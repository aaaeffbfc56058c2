"""The outbox (#13 "never blocked by the database"): changes pushed after the local write.

Against the real PostgreSQL of the fixture and the sandbox over loopback:
a change is pushed right after it is journaled; only entries written after
the store was configured are shared (older ones with ``--backfill``,
scrubbed); a store that is down costs one warning line, never the change,
and what waited goes with the next command.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest

from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.postgres import PostgresServer
from tests.fixtures.sandbox import scope


def shared(admin_url: str) -> list[tuple[Any, ...]]:
    """(origin, local_id, operation, outcome, reason) of every shared entry, by server id."""
    with psycopg.connect(admin_url) as conn:
        return conn.execute(
            "SELECT e.origin::text, e.local_id, e.operation, o.outcome, e.reason"
            " FROM bottui.journal_entries AS e LEFT JOIN bottui.journal_outcomes AS o"
            " ON o.origin = e.origin AND o.local_id = e.local_id ORDER BY e.id"
        ).fetchall()


@pytest.fixture
def team(pg_admin_url: str, env: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """The sandbox and a migrated team store named by BOTTUI_STORE_URL."""
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    assert cli("store", "migrate").code == 0
    return pg_admin_url


def test_a_change_is_pushed_right_after_it_is_journaled(team: str) -> None:
    r = cli("limiter", "disable", "rl-login", *scope(), "--reason", "INC-1")
    assert r.code == 0, r.err
    assert r.err == ""
    rows = shared(team)
    assert [(row[2], row[3], row[4]) for row in rows] == [("limiter.set-active", "ok", "INC-1")]
    status = cli("store", "status", "--json").json()
    assert status["waiting"] == 0 and status["lastSync"] is not None


def test_history_before_the_store_only_with_backfill_and_scrubbed(
    env: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0  # no store yet
    plant_a_key_in_old_history()
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    assert cli("store", "migrate").code == 0
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    assert [row[2] for row in shared(pg_admin_url)] == ["limiter.set-active"]
    done = cli("store", "sync", "--backfill")
    assert done.code == 0, done.err
    ops = sorted(row[2] for row in shared(pg_admin_url))
    assert ops == ["limiter.set-active", "limiter.set-active", "project.create"]
    again = cli("store", "sync", "--backfill")  # at-least-once, still once each
    assert again.code == 0
    assert len(shared(pg_admin_url)) == 3
    assert CANARY not in dump(pg_admin_url)
    assert 'serverKey"":""***' in dump(pg_admin_url)


CANARY = "sk-CANARY-5c1f0e"


def plant_a_key_in_old_history() -> None:
    """An old entry whose result holds a server key in clear (as an early journal could)."""
    import sqlite3

    from bottui.store.journal import Journal
    from bottui.store.paths import Locations

    path = Locations.default().journal_file
    journal = Journal(path)
    entry_id = journal.start(
        profile="p", base_url="http://x", operation="project.create", account="a",
        project="p1", target={"projectId": "p1"}, request_body=None,
    )  # fmt: skip
    journal.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT OR IGNORE INTO words (word) VALUES ('ok')")
        (word,) = conn.execute("SELECT id FROM words WHERE word = 'ok'").fetchone()
        conn.execute(
            "INSERT INTO results (entry_id, finished, word, result) VALUES (?, 1, ?, ?)",
            (entry_id, word, json.dumps({"projectId": "p1", "serverKey": CANARY})),
        )
    conn.close()


def dump(admin_url: str) -> str:
    """Every row of every table of the store's schema, as text."""
    out = []
    with psycopg.connect(admin_url) as conn:
        tables = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'bottui'"
        ).fetchall()
        for (table,) in tables:
            rows = conn.execute(f"SELECT t::text FROM bottui.{table} AS t").fetchall()
            out += [row[0] for row in rows]
    return "\n".join(out)


def test_store_down_the_change_goes_ahead_with_one_warning_then_catches_up(
    team: str, postgres_server: PostgresServer
) -> None:
    postgres_server.stop()
    try:
        r = cli("limiter", "disable", "rl-login", *scope(), "--json")
        assert r.code == 0
        assert json.loads(r.out)
        lines = [line for line in r.err.splitlines() if line]
        assert len(lines) == 1, r.err
        assert lines[0].startswith("warning: team journal: 1 not yet shared")
        assert "Traceback" not in r.err
        status_line = cli("store", "sync")
        assert status_line.code == 2 and "not yet shared" in status_line.err
    finally:
        postgres_server.start()
    assert shared(team) == []
    assert cli("store", "sync").code == 0
    assert [row[3] for row in shared(team)] == ["ok"]

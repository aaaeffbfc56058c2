"""The outbox (#13 "never blocked by the database"): changes pushed after the local write.

Against the real PostgreSQL of the fixture and the sandbox over loopback:
a change is pushed right after it is journaled; only entries written after
the store was configured are shared (older ones with ``--backfill``,
scrubbed); a store that is down costs a warning line per fact, never the change,
and what waited goes with the next command.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bottui.ops.journal_view import line
from bottui.ops.team_push import EXIT_BUDGET
from bottui.sandbox.server import SandboxServer
from bottui.store.journal.journal_records import EntryPage
from tests.cli.helpers import cli
from tests.fixtures.postgres import PostgresServer
from tests.fixtures.sandbox import scope


def down_warnings(err: str) -> list[str]:
    """The warning lines of a change made while the store is down, checked.

    Three facts, one line each: the collision check could not be made (a
    limiter change asks for teammates' recent changes first), the entry
    waits to be shared, and whether the change supersedes a timed revert was
    judged from this machine's timed changes only (#27). Nothing else, and
    never a traceback.
    """
    lines = [line for line in err.splitlines() if line]
    assert "Traceback" not in err
    assert len(lines) == 3, err
    assert lines[0].startswith("warning: Could not check for teammates' recent changes")
    assert lines[1].startswith("warning: team journal: 1 not yet shared")
    assert lines[2].startswith("warning: team store down: only this machine's timed changes")
    return lines


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
    plant_a_key_in_old_history(env.base_url)
    plant_a_key_in_old_history("http://x")  # another base URL: never this store's (#27)
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    assert cli("store", "migrate").code == 0
    assert cli("limiter", "enable", "rl-login", *scope()).code == 0
    assert [row[2] for row in shared(pg_admin_url)] == ["limiter.set-active"]
    done = cli("store", "sync", "--backfill")
    assert done.code == 0, done.err
    # Only the entries of the store's base URL (here BOTTUI_BASE_URL's, no profile).
    assert "shared 2 older entries of " + env.base_url in done.out
    ops = sorted(row[2] for row in shared(pg_admin_url))
    assert ops == ["limiter.set-active", "limiter.set-active", "project.create"]
    again = cli("store", "sync", "--backfill")  # at-least-once, still once each
    assert again.code == 0
    assert len(shared(pg_admin_url)) == 3
    assert CANARY not in dump(pg_admin_url)
    assert 'serverKey"":""***' in dump(pg_admin_url)


CANARY = "sk-CANARY-5c1f0e"


def plant_a_key_in_old_history(base_url: str) -> None:
    """An old entry whose result holds a server key in clear (as an early journal could)."""
    import sqlite3

    from bottui.store.files import Locations
    from bottui.store.journal.journal_file import Journal

    path = Locations.default().journal_file
    journal = Journal(path)
    entry_id = journal.start(
        profile="p", base_url=base_url, operation="project.create", account="a",
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


def test_store_down_the_change_goes_ahead_with_its_warnings_then_catches_up(
    team: str, postgres_server: PostgresServer
) -> None:
    postgres_server.stop()
    try:
        r = cli("limiter", "disable", "rl-login", *scope(), "--json")
        assert r.code == 0
        assert json.loads(r.out)
        down_warnings(r.err)
        status_line = cli("store", "sync")
        assert status_line.code == 2 and "not yet shared" in status_line.err
    finally:
        postgres_server.start()
    assert shared(team) == []
    assert cli("store", "sync").code == 0
    assert [row[3] for row in shared(team)] == ["ok"]


def test_journal_shows_the_shared_journal_and_marks_what_is_not_yet_shared(
    team: str, postgres_server: PostgresServer
) -> None:
    assert cli("limiter", "disable", "rl-login", *scope(), "--reason", "INC-7").code == 0
    postgres_server.stop()
    try:
        assert cli("limiter", "enable", "rl-login", *scope(), "--reason", "INC-8").code == 0
        down = cli("journal", "--json")
        assert down.code == 0
        assert "showing this machine's journal only" in down.err
        assert [e.get("shared") for e in down.json()["entries"]] == [None, None]
    finally:
        postgres_server.start()
    # A teammate's entry, only in the shared journal, and ours not yet pushed: both shown.
    with psycopg.connect(team) as conn:
        conn.execute(
            "INSERT INTO bottui.journal_entries (origin, local_id, started_at, operator, host,"
            " profile, reason, base_url, account, project, operation, target) VALUES"
            " (gen_random_uuid(), 1, now(), 'bob', 'bastion-2', 'prod', 'INC-9', 'http://x',"
            " 'a', 'p', 'limiter.set-active', '{}')"
        )
    entries = cli("journal", "--json").json()["entries"]
    # The journal command pushed what waited first: everything is shared now.
    assert sorted(e["reason"] for e in entries) == ["INC-7", "INC-8", "INC-9"]
    assert all(e["shared"] is True for e in entries)
    assert [
        e["operator"] for e in cli("journal", "--json", "--operator", "bob").json()["entries"]
    ] == ["bob"]
    assert [
        e["reason"] for e in cli("journal", "--json", "--reason", "inc-7").json()["entries"]
    ] == ["INC-7"]
    lines = cli("journal", "--jsonl", "--all").out.splitlines()
    assert len(lines) == 3


def test_unshared_local_entries_are_marked(team: str) -> None:
    """Entries above the push cursor come first, marked; then the shared ones."""
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0  # shared
    page = asyncio.run(_local_then_shared(team))
    assert [e.shared for e in page.entries] == [False, True]
    assert "(not yet shared)" in line(page.entries[0])
    assert page.entries[0].to_json()["shared"] is False


async def _local_then_shared(team: str) -> EntryPage:
    from bottui.ops.shared_journal import SharedJournal
    from bottui.ops.team_push import TeamSync, open_team_store_url
    from bottui.store.files import Locations
    from bottui.store.journal.journal_store import SqliteJournalStore
    from bottui.store.keyring_tokens import TokenStore

    locations = Locations.default()
    team_sync = TeamSync(locations.journal_file, await open_team_store_url(team, {}, TokenStore()))
    local = SqliteJournalStore.at(locations)
    await local.start(
        profile="p", base_url="http://x", operation="limiter.set-active", account="a",
        project="p", target={"limiterId": "rl"}, request_body={"isActive": True},
    )  # fmt: skip
    try:
        return await SharedJournal(local, team_sync).page(limit=10)
    finally:
        await local.close()
        await team_sync.close()


def test_a_bulk_run_is_shared_whole_and_its_run_filter_finds_it(team: str, tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(f"v-{n}\n" for n in range(300)), encoding="utf-8")
    r = cli("revoke", *scope(), "--from-file", str(ids), "--reason", "INC-bulk")
    assert r.code == 0, r.err
    rows = shared(team)
    assert len(rows) == 300 and all(row[3] is not None for row in rows)
    run = cli("journal", "--json", "--run", "1", "--all").json()["entries"]
    assert len(run) == 300 and all(e["shared"] is True for e in run)
    assert cli("journal", "--json", "--run", "2").json()["entries"] == []


def test_a_store_that_never_answers_costs_a_bounded_wait_and_its_warnings(
    env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A network cut: the connection is accepted and nothing ever comes back.

    Unbounded, the command would wait forever: it runs on a thread joined for
    300 s (a hang guard, never the measure). What the bound costs:
    ``python -m tests.bench.outbox_cut``."""
    import socket
    import threading

    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(8)
    results: list[Any] = []
    try:
        port = hole.getsockname()[1]
        monkeypatch.setenv("BOTTUI_STORE_URL", f"postgresql://bottui@127.0.0.1:{port}/bottui")
        worker = threading.Thread(
            target=lambda: results.append(cli("limiter", "disable", "rl-login", *scope())),
            daemon=True,
        )
        worker.start()
        worker.join(300)
        assert not worker.is_alive(), "the command waited for a store that never answers"
    finally:
        hole.close()
    (r,) = results
    assert r.code == 0
    down_warnings(r.err)
    assert f"within {EXIT_BUDGET:g} s" in r.err  # the bound that cut it, named


def test_credentials_revoked_then_restored_as_the_readme_operator_role(
    team: str,
    postgres_server: PostgresServer,
    pg_database: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.team.test_schema import _readme_sql

    role = f"dana_{pg_database}"
    setup = _readme_sql()
    setup = setup[setup.index("CREATE ROLE bottui_operator") :].replace("alice", role)
    setup = setup.replace("bottui_operator", f"op2_{pg_database}")
    setup = setup.replace("'change-me'", "'s3cret-dana'")
    with psycopg.connect(team, autocommit=True) as conn:
        conn.execute(setup.encode())
    monkeypatch.setenv("BOTTUI_STORE_URL", postgres_server.tcp_url(pg_database, role))
    monkeypatch.setenv("PGPASSWORD", "s3cret-dana")
    assert cli("limiter", "disable", "rl-login", *scope()).err == ""
    with psycopg.connect(team, autocommit=True) as conn:
        conn.execute(f"ALTER ROLE {role} NOLOGIN".encode())
    r = cli("limiter", "enable", "rl-login", *scope())
    assert r.code == 0
    down_warnings(r.err)
    assert "s3cret-dana" not in r.err
    with psycopg.connect(team, autocommit=True) as conn:
        conn.execute(f"ALTER ROLE {role} LOGIN".encode())
    assert cli("store", "sync").code == 0
    assert [(row[3]) for row in shared(team)] == ["ok", "ok"]


def test_journal_with_nothing_waiting_and_the_store_down_falls_back_with_a_note(
    team: str, postgres_server: PostgresServer
) -> None:
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0  # shared: nothing waits
    postgres_server.stop()
    try:
        for argv in ((), ("--json",), ("--jsonl", "--all")):
            r = cli("journal", *argv)
            assert r.code == 0, r.err
            assert "showing this machine's journal only" in r.err and "Traceback" not in r.err
            assert "limiter" in r.out
    finally:
        postgres_server.start()

"""The outbox across real processes (#13): kill -9 before the push, a PostgreSQL
restart in the middle of a bulk run, two operators on one store.

Each ends with every event in the shared journal exactly once: pushing is
at-least-once and the store's event id ``(origin, local_id)`` is unique.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from tests.cli.helpers import cli
from tests.fixtures.postgres import PostgresServer
from tests.fixtures.sandbox import scope

#: Generous: a busy 2-core machine runs other suites at the same time.
WAIT = 60.0


def wait_for(what: Callable[[], bool], timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting")
        time.sleep(0.05)


def bottui(*argv: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bottui", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def local_count(path: Path | None = None, table: str = "items") -> int:
    """Rows of the local journal's ``items`` (started records) or ``results`` (outcomes)."""
    path = path or Locations.default().journal_file
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        (n,) = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()
    return int(n)


def counts(admin_url: str) -> tuple[int, int, int, int]:
    """Entries, distinct event ids, outcomes, distinct outcome ids in the shared journal."""
    with psycopg.connect(admin_url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM bottui.journal_entries),"
            " (SELECT count(DISTINCT (origin, local_id)) FROM bottui.journal_entries),"
            " (SELECT count(*) FROM bottui.journal_outcomes),"
            " (SELECT count(DISTINCT (origin, local_id)) FROM bottui.journal_outcomes)"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])


@pytest.fixture
def team(pg_admin_url: str, env: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    assert cli("store", "migrate").code == 0
    return pg_admin_url


def test_kill_9_between_the_local_write_and_the_push_then_the_next_start_pushes_it(
    team: str,
) -> None:
    # The shared journal locked: the push waits there, after the local write.
    holder = psycopg.connect(team)
    watcher = psycopg.connect(team, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("LOCK TABLE bottui.journal_entries IN ACCESS EXCLUSIVE MODE")
    proc = bottui("limiter", "disable", "rl-login", *scope(), "--reason", "INC-kill")
    try:
        # The command pushes on its own thread while it runs (every second): on a busy
        # machine that push can take the *started* record while the request is still in
        # flight. Killed then, the command dies mid-request and its outcome is honestly
        # missing (an unfinished record). This test is about a kill after the local write
        # of both records: it waits for the outcome too.
        wait_for(lambda: local_count() == 1 and local_count(table="results") == 1)

        def pushing() -> bool:
            # Not the holder's connection: its statistics are frozen for its transaction.
            found = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'bottui'"
                " AND wait_event_type = 'Lock'"
            ).fetchone()
            return found is not None and found[0] > 0

        wait_for(pushing)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
        holder.execute("ROLLBACK")
        holder.close()
        watcher.close()
    assert proc.returncode == -signal.SIGKILL
    assert counts(team) == (0, 0, 0, 0)
    # The next start (any command) pushes what waited: once.
    nxt = cli("limiter", "enable", "rl-login", *scope())
    assert nxt.code == 0 and nxt.err == "", nxt.err
    assert counts(team) == (2, 2, 2, 2)
    # A push whose answer was lost (the cursor not moved) is repeated: still once.
    conn = sqlite3.connect(Locations.default().journal_file)
    with conn:
        conn.execute("UPDATE team_push SET pushed_id = 0")
    conn.close()
    assert cli("store", "sync").code == 0
    assert counts(team) == (2, 2, 2, 2)


def test_postgresql_restarted_in_the_middle_of_a_bulk_run_loses_and_duplicates_nothing(
    team: str, postgres_server: PostgresServer, tmp_path: Path
) -> None:
    n = 4000
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(f"v-{i}\n" for i in range(n)), encoding="utf-8")
    proc = bottui("revoke", *scope(), "--from-file", str(ids), "--concurrency", "4")
    stopped = False
    try:
        wait_for(lambda: counts(team)[0] > 0)
        postgres_server.stop()
        stopped = True
        seen = local_count()
        wait_for(lambda: local_count() > seen or proc.poll() is not None)
        time.sleep(1.0)
        postgres_server.start()
        stopped = False
        _, err = proc.communicate(timeout=300)
    finally:
        if stopped:
            postgres_server.start()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert cli("store", "sync").code == 0
    assert counts(team) == (n, n, n, n)


def test_two_operators_on_one_store_both_see_every_entry(
    team: str, env: SandboxServer, tmp_path: Path
) -> None:
    homes = {}
    for who in ("alice", "bob"):
        home = tmp_path / who
        homes[who] = {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "BOTTUI_OPERATOR": who,
        }
    procs = [
        bottui("limiter", "disable", "rl-login", *scope(), "--reason", f"INC-{who}", env=e)
        for who, e in homes.items()
    ]
    procs += [
        bottui("limiter", "enable", "rl-search", *scope(), "--reason", f"INC-{who}-2", env=e)
        for who, e in homes.items()
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, err
    for who, e in homes.items():
        done = subprocess.run(
            [sys.executable, "-m", "bottui", "journal", "--json"],
            capture_output=True,
            text=True,
            env={**os.environ, **e},
            timeout=WAIT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        import json

        entries = json.loads(done.stdout)["entries"]
        assert sorted(x["operator"] for x in entries) == ["alice", "alice", "bob", "bob"], who
        assert all(x["shared"] is True for x in entries)
        assert len({x["event_id"] for x in entries}) == 4
    assert counts(team) == (4, 4, 4, 4)


def test_two_processes_on_one_journal_push_each_event_once(team: str, tmp_path: Path) -> None:
    """Several bottui processes share one journal and its push cursor: each pushes, none twice."""
    files = []
    for k in range(2):
        ids = tmp_path / f"ids-{k}.txt"
        ids.write_text("".join(f"w{k}-{i}\n" for i in range(1500)), encoding="utf-8")
        files.append(ids)
    procs = [
        bottui("revoke", *scope(), "--from-file", str(f), "--reason", "INC-two") for f in files
    ]
    procs.append(bottui("limiter", "disable", "rl-login", *scope()))
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    assert cli("store", "sync").code == 0
    assert counts(team) == (3001, 3001, 3001, 3001)
    assert cli("store", "status", "--json").json()["waiting"] == 0

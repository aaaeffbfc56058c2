"""The shared journal at scale on PostgreSQL: the first page of each filter, in process.

Run it as a script (pytest does not collect tests/bench)::

    python tests/bench/pg_journal.py [--entries 10000000] [--reps 5] [--url URL] [--keep]

1. A PostgreSQL: ``--url`` (or ``BOTTUI_TEST_POSTGRES_URL``: a database the
   script may fill), else one of its own started as the tests start theirs
   (``tests/fixtures/postgres.py``: pgserver's binaries or the machine's
   initdb/pg_ctl, data in a temporary directory under /tmp, removed at the
   end unless ``--keep``).
2. ``bottui store migrate``'s schema, then ``--entries`` entries made by bulk
   SQL (``generate_series``, no app code): 50 operators, 5,000 projects, one
   entry every 3 s; 98% are bulk revocations in runs of 1,000,000, 2% single
   changes with a reason (5,000 incidents: ``INC-42 credential stuffing``
   is 1 entry in 250,000, the words ``credential stuffing`` 1 in 50);
   outcomes for all but the newest 200 (1 in 500
   ``api-error``). Triggers are disabled and the secondary indexes dropped
   while loading (as a restore would), then rebuilt, and the tables analysed.
3. For each filter, the store's ``page`` (limit 50, newest first, through
   :class:`~bottui.store.team.pg_store.TeamStore` as the faces will call it):
   the first call, then the median (and max) of ``--reps`` more rounds, each
   round timing every filter once (interleaved).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.store.team.page_query import TeamQuery  # noqa: E402
from bottui.store.team.pg_store import TeamStore  # noqa: E402
from bottui.store.team.store_target import check_store_url  # noqa: E402

T0 = datetime(2025, 11, 24, tzinfo=UTC)
STEP_S = 3
OPERATORS = 50
PROJECTS = 5_000
RUN_SIZE = 1_000_000
SECONDARY = (
    "journal_entries_time",
    "journal_entries_project",
    "journal_entries_operator",
    "journal_entries_project_operator",
    "journal_entries_run",
    "journal_entries_reason",
    "journal_outcomes_word",
    "journal_outcomes_entry",
)


def origin_of(operator: int) -> UUID:
    return UUID(int=operator + 1)


def _fill_sql(entries: int) -> list[str]:
    start = f"timestamptz '{T0.isoformat()}'"
    origin = "('00000000-0000-0000-0000-' || lpad(to_hex(i % 50 + 1), 12, '0'))::uuid"
    single = "i % 50 = 0"
    return [
        "ALTER TABLE bottui.journal_entries DISABLE TRIGGER USER",
        "ALTER TABLE bottui.journal_outcomes DISABLE TRIGGER USER",
        *(f"DROP INDEX IF EXISTS bottui.{name}" for name in SECONDARY),
        f"""
        INSERT INTO bottui.journal_entries (origin, local_id, db_role, received_at, started_at,
            operator, host, profile, reason, base_url, account, project, operation, target,
            request_body, previous, run_id, item_key)
        SELECT {origin}, i, 'op' || (i % {OPERATORS}),
            {start} + make_interval(secs => i * {STEP_S} + 1),
            {start} + make_interval(secs => i * {STEP_S}),
            'op' || (i % {OPERATORS}) || '@host', 'host-' || (i % {OPERATORS}), 'prod',
            CASE WHEN {single} THEN 'INC-' || (i / 50 % 5000) || ' credential stuffing' END,
            'https://api.example.com', 'acme', 'proj-' || ((i::bigint * 7919) % {PROJECTS}),
            CASE WHEN {single} THEN 'limiter.set-active' ELSE 'grant.revoke' END,
            CASE WHEN {single} THEN '{{"rate_limiter_id":"rl-' || (i % 40) || '"}}'
                 ELSE '{{"visitor_id":"vis_' || md5(i::text) || '"}}' END,
            CASE WHEN {single} THEN '{{"isActive":false}}' END,
            CASE WHEN {single} THEN '{{"isActive":true}}' END,
            CASE WHEN {single} THEN NULL ELSE i / {RUN_SIZE} + 1 END,
            CASE WHEN {single} THEN NULL ELSE 'vis_' || md5(i::text) END
        FROM generate_series(1, {entries}) AS i
        """,
        f"""
        INSERT INTO bottui.journal_outcomes (origin, local_id, entry_id, entry_started_at,
            db_role, received_at, finished_at, outcome, status, duration_ms)
        SELECT e.origin, e.local_id, e.id, e.started_at, e.db_role, e.received_at,
            e.started_at + interval '50 ms',
            CASE WHEN e.local_id % 500 = 0 THEN 'api-error'
                 WHEN e.run_id IS NULL THEN 'ok'
                 WHEN e.local_id % 3 = 0 THEN 'nothing-standing' ELSE 'withdrawn' END,
            CASE WHEN e.local_id % 500 = 0 THEN 500 ELSE 200 END, 50
        FROM bottui.journal_entries AS e WHERE e.local_id <= {max(entries - 200, 0)}
        """,
        "INSERT INTO bottui.open_entries (entry_id, started_at) SELECT id, started_at"
        f" FROM bottui.journal_entries WHERE local_id > {max(entries - 200, 0)}",
        "CREATE INDEX journal_entries_time ON bottui.journal_entries (started_at, id)",
        "CREATE INDEX journal_entries_project ON bottui.journal_entries (project, started_at, id)",
        "CREATE INDEX journal_entries_operator ON bottui.journal_entries"
        " (operator, started_at, id)",
        "CREATE INDEX journal_entries_project_operator ON bottui.journal_entries"
        " (project, operator, started_at, id)",
        "CREATE INDEX journal_entries_run ON bottui.journal_entries"
        " (origin, run_id, started_at, id) WHERE run_id IS NOT NULL",
        "CREATE INDEX journal_entries_reason ON bottui.journal_entries"
        " USING gin (bottui.reason_trigrams(reason)) WHERE reason IS NOT NULL",
        "CREATE UNIQUE INDEX journal_outcomes_entry ON bottui.journal_outcomes (entry_id)",
        "CREATE INDEX journal_outcomes_word ON bottui.journal_outcomes"
        " (outcome, entry_started_at, entry_id)",
        "ALTER TABLE bottui.journal_entries ENABLE TRIGGER USER",
        "ALTER TABLE bottui.journal_outcomes ENABLE TRIGGER USER",
        "VACUUM ANALYZE bottui.journal_entries",
        "VACUUM ANALYZE bottui.journal_outcomes",
    ]


def queries(entries: int) -> dict[str, TeamQuery]:
    newest = T0 + timedelta(seconds=entries * STEP_S)
    middle = T0 + timedelta(seconds=entries * STEP_S // 2)
    failed = frozenset({"api-error", "network-error", "unusable-body", "refused", "interrupted"})
    return {
        "no filter": TeamQuery(),
        "project": TeamQuery(project="proj-1234"),
        "operator": TeamQuery(operator="op7@host"),
        "operator + project": TeamQuery(operator="op7@host", project="proj-1234"),
        "outcome api-error": TeamQuery(outcomes=frozenset({"api-error"})),
        "outcome group failed": TeamQuery(outcomes=failed),
        "outcome + project": TeamQuery(outcomes=frozenset({"api-error"}), project="proj-1234"),
        "operation": TeamQuery(operation="limiter.set-active"),
        "unfinished": TeamQuery(unfinished=True),
        "run (oldest)": TeamQuery(run=(origin_of(1), 1)),
        "since last hour": TeamQuery(since=newest - timedelta(hours=1)),
        "until far back": TeamQuery(until=T0 + timedelta(days=1)),
        "since+until an hour mid-way": TeamQuery(since=middle, until=middle + timedelta(hours=1)),
        "reason, rare (1 in 250,000)": TeamQuery(reason="inc-42 "),
        "reason, common (1 in 50)": TeamQuery(reason="Credential"),
        "reason, matching nothing": TeamQuery(reason="inc-99999"),
        "reason, 1 in 225, not recent": TeamQuery(reason="inc-1"),
        "reason + project": TeamQuery(reason="stuffing", project="proj-1234"),
        "reason + operator": TeamQuery(reason="inc-42 ", operator="op0@host"),
        "matches nothing": TeamQuery(project="no-such-project"),
    }


async def measure(url: str, entries: int, reps: int) -> None:
    store = TeamStore(check_store_url(url, os.environ), timeout=600)
    try:
        first = await store.page(limit=50)
        cases = dict(queries(entries))
        print(f"{'filter':<30} {'rows':>5} {'first ms':>9} {'median ms':>10} {'max ms':>7}")
        rows: dict[str, int] = {}
        firsts: dict[str, float] = {}
        times: dict[str, list[float]] = {name: [] for name in cases}
        # rounds interleaved: each round times every filter once, so a burst of
        # load on the shared machine falls on all filters alike
        for round_ in range(reps + 1):
            for name, query in cases.items():
                began = time.perf_counter()
                page = await store.page(query, limit=50)
                took = (time.perf_counter() - began) * 1000
                if round_ == 0:
                    rows[name], firsts[name] = len(page.entries), took
                else:
                    times[name].append(took)
        for name in cases:
            median, most = statistics.median(times[name]), max(times[name])
            print(f"{name:<30} {rows[name]:>5} {firsts[name]:>9.1f} {median:>10.1f} {most:>7.1f}")
        began = time.perf_counter()
        await store.page(limit=50, cursor=first.next)
        print(f"{'second page (cursor)':<30} {50:>5} {(time.perf_counter() - began) * 1000:>9.1f}")
    finally:
        await store.close()


def fill(url: str, entries: int) -> None:
    import psycopg

    from bottui.store.team.pg_schema import SCHEMA_VERSION

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS bottui CASCADE")
    store = TeamStore(check_store_url(url, os.environ), timeout=600)
    asyncio.run(store.migrate())
    asyncio.run(store.close())
    began = time.monotonic()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '512MB'")
        for statement in _fill_sql(entries):
            step = time.monotonic()
            conn.execute(statement.encode())
            print(f"  {time.monotonic() - step:7.1f} s  {' '.join(statement.split())[:70]}")
        size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))")
        print(
            f"made {entries:,} entries (schema {SCHEMA_VERSION}) in "
            f"{time.monotonic() - began:.0f} s; database {size.fetchone()[0]}"
        )  # type: ignore[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=10_000_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--url", default=os.environ.get("BOTTUI_TEST_POSTGRES_URL"))
    parser.add_argument("--keep", action="store_true", help="keep our own server's data")
    parser.add_argument("--reuse", action="store_true", help="measure the data already there")
    args = parser.parse_args()
    server = None
    url = args.url
    if url is None:
        from tests.fixtures.postgres import _own_server, _teardown

        server = _own_server()
        url = server.admin_url("postgres")
        print(f"PostgreSQL from {server.origin}, data in {server.datadir}")
    try:
        if not args.reuse:
            fill(url, args.entries)
        print(f"load average: {os.getloadavg()}")
        asyncio.run(measure(url, args.entries, args.reps))
        print(f"load average: {os.getloadavg()}")
    finally:
        if server is not None and not args.keep:
            _teardown(server)


if __name__ == "__main__":
    main()

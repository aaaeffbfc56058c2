"""A big journal for the journal benchmarks, made in /tmp in a minute or two.

``python -m tests.bench.journal_data FILE [N]`` writes N entries (default
1,000,000) to FILE; the benchmarks call :func:`make`.

What it holds, by entry number ``i`` (oldest first), to give every filter of
``bottui journal`` something realistic to find:

* bulk revocations (``grant.revoke``) in runs of :data:`RUN_SIZE` ids, each
  run in one of 20 projects ``proj-0`` .. ``proj-19``; one run in ten of
  profile ``staging``, the rest of the profile given (``prod``);
* one entry in 500 (``i % 500 == 0``) a single change in the *hot* project (``shop-prod``):
  a rate limiter (``limiter.set-active``) or a threshold change, ``ok``;
* outcomes by ``i % 1000``: withdrawn (97 %), nothing-standing (2 %),
  api-error, unknown, network-error, unknown-retried (rare: ``--outcome
  failed`` finds few); about 10 per million unfinished (no outcome);
* start times spread evenly over :data:`SPAN_DAYS` days before 2026-11-21.

The rows are written by bulk SQL straight into the journal's tables (recursive
CTEs, a million rows per transaction, as ``journal_scale.py`` does; 10,000,000
entries in a few minutes) when the file's schema is one whose tables this
script knows: :data:`KNOWN_VERSIONS`, the versions since 3 whose steps only
added tables, columns with a default and indexes to what it writes (it
stopped matching at v4 once, and every run fell back to the API path, about
70x slower: ``tests/store/test_bench_data.py`` now checks the app's schema is
one of them). Any other schema gets the same entries through the public
``SqliteJournalStore.batch()`` API, slower but whatever the storage looks like.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bottui.store.journal.journal_records import Operation, StartRecord  # noqa: E402
from bottui.store.journal.journal_store import SqliteJournalStore  # noqa: E402

#: Ids per bulk run.
RUN_SIZE: Final = 100_000
#: The entries' start times cover this many days.
SPAN_DAYS: Final = 90
#: The end of that span (the newest entry).
NEWEST: Final = datetime(2026, 11, 21, tzinfo=UTC)
#: Schema versions whose tables the bulk SQL writes: 3, and every later one
#: that only added what the SQL may leave out (v4: host, reason, origin; v5:
#: team push bookkeeping; v6: timed tables). A new version goes here once
#: the SQL below is checked against it.
KNOWN_VERSIONS: Final = frozenset({3, 4, 5, 6})
#: Rows per transaction.
CHUNK: Final = 1_000_000
HOT_PROJECT: Final = "shop-prod"
BASE_URL: Final = "https://api.example.com"
OUTCOMES: Final[tuple[tuple[int, str, int | None], ...]] = (
    # (first i % 1000, outcome, status): up to the next row's first value.
    (0, "withdrawn", 200),
    (970, "nothing-standing", 404),
    (990, "api-error", 429),
    (995, "unknown", None),
    (998, "network-error", None),
    (999, "unknown-retried", None),
)


def _step() -> float:
    return SPAN_DAYS * 86400 / 10_000_000  # the same times whatever N: 10M fill the span


def _oldest(n: int) -> datetime:
    return NEWEST - timedelta(seconds=n * _step())


def _single(i: int) -> str | None:
    """The operation of entry ``i`` when it is a single change, else None."""
    if i % 1000 == 0:
        return str(Operation.SET_LIMITER_ACTIVE)
    if i % 1000 == 500:
        return str(Operation.SET_THRESHOLDS)
    return None


def _outcome(i: int) -> tuple[str, int | None] | None:
    if i % 100_003 == 7:
        return None  # unfinished
    if _single(i):
        return "ok", 200
    rest = i % 1000
    found = OUTCOMES[0]
    for row in OUTCOMES:
        if rest >= row[0]:
            found = row
    return found[1], found[2]


def _create(path: Path) -> None:
    """The file with the app's schema (and migrations), made by the app itself."""

    async def touch() -> None:
        store = SqliteJournalStore(path)
        try:
            await store.run(
                profile="prod",
                account="acme",
                project="proj-0",
                input_sha256="0" * 64,
                operation=Operation.REVOKE_GRANT,
            )
        finally:
            await store.close()

    asyncio.run(touch())


def _by_sql(path: Path, n: int, profile: str, account: str) -> None:
    """The entries by bulk SQL straight into schema v3 (as ``journal_scale.py`` does).

    Layout of v3: what consecutive ids share is one ``segments`` row; per id an
    ``items`` row and a ``results`` row (the outcome word by number). Every
    500 ids (``i % 500 == 0``) a single change in the hot project (its own
    segment), then a segment of the next 499 bulk ids of the current run.
    A segment has one time: the time of its first id. Profile ``staging``
    is a run's, one run in ten (v3 keeps the profile per segment, so per id
    would mean a segment per id).
    """
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA cache_size=-200000")
        runs = (n + RUN_SIZE - 1) // RUN_SIZE
        conn.execute("BEGIN")
        conn.execute(
            "WITH RECURSIVE r(k) AS (SELECT 2 UNION ALL SELECT k + 1 FROM r WHERE k <= ?) "
            "INSERT INTO runs (id, created_at, profile, account, project, input_sha256, "
            "operation) SELECT k, '2026-08-01T00:00:00.000000Z', "
            "CASE WHEN (k - 2) % 10 = 9 THEN 'staging' ELSE ? END, ?, "
            "'proj-' || ((k - 2) % 20), printf('%064d', k), 'grant.revoke' FROM r",
            (runs, profile, account),
        )
        for _, word, _ in (*OUTCOMES, (0, "ok", 200)):
            conn.execute("INSERT OR IGNORE INTO words (word) VALUES (?)", (word,))
        words = dict(conn.execute("SELECT word, id FROM words").fetchall())
        conn.execute("COMMIT")
        t0 = int((_oldest(n) - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() * 1_000_000)
        step = int(_step() * 1_000_000)  # microseconds between entries
        run = f"(k * 500 / {RUN_SIZE})"
        word = (
            "CASE WHEN i % 500 = 0 THEN "
            + str(words["ok"])
            + " "
            + "".join(
                f"WHEN i % 1000 >= {first} THEN {words[w]} " for first, w, _ in reversed(OUTCOMES)
            )
            + "END"
        )
        status = (
            "CASE WHEN i % 500 = 0 THEN 200 "
            + "".join(
                f"WHEN i % 1000 >= {first} THEN {'NULL' if code is None else code} "
                for first, _, code in reversed(OUTCOMES)
            )
            + "END"
        )
        blocks = (n + 499) // 500
        per_chunk = CHUNK // 500
        for first_block in range(0, blocks, per_chunk):
            last_block = min(blocks, first_block + per_chunk)
            lo, hi = first_block * 500, min(n, last_block * 500)  # entries i in [lo, hi)
            conn.execute("BEGIN")
            conn.execute(
                f"""
                WITH RECURSIVE b(k) AS (
                    SELECT {first_block} UNION ALL SELECT k + 1 FROM b WHERE k + 1 < {last_block})
                INSERT INTO segments (first_id, last_id, started, hw, operator, pid, profile,
                    base_url, operation, account, project, run_id, body_prefix, body_suffix,
                    target_prefix, target_suffix)
                SELECT k * 500 + 1, k * 500 + 1, {t0} + k * 500 * {step},
                    {t0} + k * 500 * {step}, 'oncall@bench', 4242, ?1, '{BASE_URL}',
                    CASE WHEN k % 2 = 0 THEN 'limiter.set-active' ELSE 'thresholds.set' END,
                    ?2, '{HOT_PROJECT}', NULL, NULL, NULL, NULL, NULL FROM b
                UNION ALL
                SELECT k * 500 + 2, min(k * 500 + 500, ?3), {t0} + (k * 500 + 1) * {step},
                    {t0} + (k * 500 + 1) * {step}, 'oncall@bench', 4242,
                    CASE WHEN {run} % 10 = 9 THEN 'staging' ELSE ?1 END, '{BASE_URL}',
                    'grant.revoke', ?2, 'proj-' || ({run} % 20), {run} + 2,
                    '{{"subject":', '}}', '{{"visitorId":"vis_', '"}}'
                FROM b WHERE k * 500 + 1 < ?3
                ORDER BY 1
                """,
                (profile, account, n),
            )
            conn.execute(
                f"""
                WITH RECURSIVE seq(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ?)
                INSERT INTO items (id, target, body, previous, run_id, item_key)
                SELECT i + 1,
                    CASE WHEN i % 1000 = 0 THEN '{{"rate_limiter_id":"rl-' || (i % 7) || '"}}'
                         WHEN i % 1000 = 500 THEN '{{"dimension_id":"bot-score"}}'
                         ELSE i END,
                    CASE WHEN i % 1000 = 0 THEN '{{"isActive":false}}'
                         WHEN i % 1000 = 500 THEN
                         '{{"blockThreshold":0.9,"challengeThreshold":0.6,"name":"Bot score"}}'
                         END,
                    CASE WHEN i % 1000 = 0 THEN '{{"isActive":true}}' END,
                    CASE WHEN i % 500 = 0 THEN NULL ELSE i / {RUN_SIZE} + 2 END,
                    CASE WHEN i % 500 = 0 THEN NULL ELSE randomblob(16) END
                FROM seq
                """,
                (lo, hi),
            )
            conn.execute(
                f"""
                INSERT INTO results (entry_id, finished, word, status, result, error,
                    duration_ms)
                SELECT i + 1, {t0} + i * {step} + 12500, {word}, {status}, NULL,
                    CASE WHEN i % 1000 BETWEEN 990 AND 994 AND i % 500 != 0
                         THEN '{{"status":429,"message":"Too many requests"}}' END,
                    12.5
                FROM (SELECT id - 1 AS i FROM items WHERE id > ? AND id <= ?)
                WHERE i % 100003 != 7
                """,
                (lo, hi),
            )
            conn.execute("COMMIT")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("ANALYZE")
    finally:
        conn.close()


def _by_api(path: Path, n: int, profile: str, account: str) -> None:
    async def write() -> None:
        store = SqliteJournalStore(path)
        try:
            run_ids = [
                await store.run(
                    profile=profile,
                    account=account,
                    project=f"proj-{k % 20}",
                    input_sha256=f"{k:064d}",
                    operation=Operation.REVOKE_GRANT,
                )
                for k in range((n + RUN_SIZE - 1) // RUN_SIZE)
            ]
            batch = await store.batch()
            for start in range(0, n, 10_000):
                chunk = range(start, min(n, start + 10_000))
                ids = await batch.start_many([_record(i, profile, account, run_ids) for i in chunk])
                for i, entry_id in zip(chunk, ids, strict=True):
                    outcome = _outcome(i)
                    if outcome is not None:
                        await batch.finish(
                            entry_id, outcome=outcome[0], status=outcome[1], duration_ms=12.5
                        )
            await batch.close()
        finally:
            await store.close()

    asyncio.run(write())


def _record(i: int, profile: str, account: str, run_ids: Sequence[int]) -> StartRecord:
    single = _single(i)
    who = "staging" if i % 10 == 9 else profile
    if single == Operation.SET_LIMITER_ACTIVE:
        target: dict[str, str] = {"rate_limiter_id": f"rl-{i % 7}"}
        body: dict[str, object] | None = {"isActive": False}
    elif single == Operation.SET_THRESHOLDS:
        target = {"dimension_id": "bot-score"}
        body = {"name": "Bot score", "blockThreshold": 0.9, "challengeThreshold": 0.6}
    else:
        target, body = {"visitorId": f"vis_{i}"}, None
    return StartRecord(
        profile=who,
        base_url=BASE_URL,
        operation=single or Operation.REVOKE_GRANT,
        account=account,
        project=HOT_PROJECT if single else f"proj-{(i // RUN_SIZE) % 20}",
        target=target,
        request_body=body,
        run_id=None if single else run_ids[i // RUN_SIZE],
    )


def make(path: Path, n: int, *, profile: str = "prod", account: str = "acme") -> str:
    """Write ``n`` entries to a new journal at ``path``; returns how ("sql" or "api")."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    _create(path)
    with sqlite3.connect(path) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    if version in KNOWN_VERSIONS:
        _by_sql(path, n, profile, account)
        return "sql"
    print(
        f"journal schema v{version} is not one of {sorted(KNOWN_VERSIONS)}: "
        "writing through the API (about 70x slower)",
        file=sys.stderr,
    )
    _by_api(path, n, profile, account)
    return "api"


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    n = int(argv[1]) if len(argv) > 1 else 1_000_000
    started = time.perf_counter()
    how = make(path, n)
    size = path.stat().st_size / 1e6
    print(f"{n} entries by {how} in {time.perf_counter() - started:.1f} s: {size:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Rows bottui did not write, inserted by a role with only INSERT (#26): every reader
of the team store goes on, skips each unreadable row once and names it."""

from __future__ import annotations

from uuid import uuid4

import msgspec
import psycopg
import pytest

from bottui.store.team.page_query import TeamQuery, target_text
from bottui.store.team.pg_schema import MAX_STORED_REASON
from bottui.store.team.pg_store import TeamStore, _change
from bottui.store.team.read_rows import Unreadable
from tests.fixtures.insert_only import Hostile
from tests.team.events import entry, outcome

BAD = str(uuid4())


@pytest.fixture
def hostile(pg_admin_url: str, pg_database: str, team_store: TeamStore) -> Hostile:
    """The INSERT-only role, on the migrated database of ``team_store``."""
    return Hostile(pg_admin_url, f"mallory_{pg_database}")


def _skipped(store: TeamStore) -> dict[str, Unreadable]:
    return {u.event: u for u in store.skips.take()}


async def _good(store: TeamStore, count: int) -> list[str]:
    origin = uuid4()
    events = [entry(i, origin) for i in range(1, count + 1)]
    await store.push([*events, *(outcome(e) for e in events)])
    return [f"{origin}:{i}" for i in range(1, count + 1)]


def _plant(hostile: Hostile) -> None:
    """One of each unreadable entry, and a readable entry whose outcome is not."""
    hostile.entry(BAD, 1, target="not json {")
    hostile.entry(BAD, 2, started_at="infinity")
    hostile.entry(BAD, 3, target="[" * 5000)
    hostile.entry(BAD, 4, started_at="10000-01-01T00:00:00Z")
    hostile.entry(BAD, 5, started_at="-infinity")
    hostile.entry(BAD, 6, request_body="[1, 2]")
    hostile.entry(BAD, 7, reason="INC-4312 fine entry, bad outcome")
    with psycopg.connect(hostile.admin_url) as conn:
        row = conn.execute(
            "SELECT id, started_at FROM bottui.journal_entries WHERE origin = %s AND local_id = 7",
            (BAD,),
        ).fetchone()
    assert row is not None
    hostile.insert(
        "journal_outcomes",
        {
            "origin": BAD,
            "local_id": 7,
            "entry_id": row[0],
            "entry_started_at": row[1],
            "finished_at": "infinity",
            "outcome": "ok",
            "result": "{{{",
        },
    )


UNREADABLE = {f"{BAD}:{i}" for i in (1, 2, 3, 4, 5, 6)}


@pytest.mark.parametrize(
    "query",
    [
        TeamQuery(),
        TeamQuery(operator="alice@laptop"),
        TeamQuery(reason="INC-4312"),
        TeamQuery(reason="credential"),
        TeamQuery(project="shop-prod"),
        TeamQuery(project="shop-prod", operator="alice@laptop"),
        TeamQuery(outcomes=frozenset({"ok"})),
        TeamQuery(account="acme", profile="prod", operation="limiter.set-active"),
    ],
    ids=lambda q: (
        ",".join(f"{k}" for k, v in msgspec.structs.asdict(q).items() if v not in (None, False))
        or "all"
    ),
)
async def test_every_filter_reads_on_and_names_what_it_skipped(
    team_store: TeamStore, hostile: Hostile, query: TeamQuery
) -> None:
    good = await _good(team_store, 5)
    _plant(hostile)
    seen: list[str] = []
    cursor = None
    for _ in range(50):  # one row a page: a cursor may stand on every kind of row
        page = await team_store.page(query, limit=1, cursor=cursor)
        seen += [f"{e.origin}:{e.local_id}" for e in page.entries]
        cursor = page.next
        if cursor is None:
            break
    assert cursor is None
    assert set(good) <= set(seen)
    assert len(seen) == len(set(seen)), "a row was read twice"
    assert not set(seen) & UNREADABLE
    skipped = _skipped(team_store)
    if query.operator is None and query.reason != "credential" and query.outcomes is None:
        assert set(skipped) >= UNREADABLE
        assert f"{BAD}:7" in seen  # a bad outcome never hides its entry
        assert all(skipped[e].operator == "mallory" for e in UNREADABLE)
    line = next(iter(skipped.values())).line if skipped else ""
    assert not skipped or ("mallory" in line and BAD in line)


async def test_a_bad_outcome_is_dropped_not_its_entry(
    team_store: TeamStore, hostile: Hostile
) -> None:
    _plant(hostile)
    page = await team_store.page(TeamQuery(operator="mallory"), limit=50)
    kept = {f"{e.origin}:{e.local_id}": e for e in page.entries}
    assert set(kept) == {f"{BAD}:7"}
    assert kept[f"{BAD}:7"].outcome is None
    skipped = team_store.skips.take()
    assert any(u.table == "journal_outcomes" and u.event == f"{BAD}:7" for u in skipped)
    # each row is said once per store, however often it is read again
    await team_store.page(TeamQuery(operator="mallory"), limit=50)
    assert team_store.skips.take() == []


async def test_the_collision_check_is_not_hidden_by_rows_from_the_future(
    team_store: TeamStore, hostile: Hostile
) -> None:
    target = target_text({"rate_limiter_id": "rl-login"})  # exactly as a push stores it
    for i in range(1, 8):
        when = "infinity" if i % 2 else "2199-01-01T00:00:00Z"
        hostile.entry(BAD, i, started_at=when, target=target)
    hostile.entry(BAD, 9, started_at="now", target=target, request_body="{{")
    from datetime import UTC, datetime

    real = entry(1, started_at=datetime.now(UTC))
    await team_store.push([real])
    found = await team_store.recent(
        "https://api.example.com",
        "acme",
        "shop-prod",
        {"rate_limiter_id": "rl-login"},
        seconds=900,
    )
    assert [(e.origin, e.local_id) for e in found] == [(real.origin, 1)]
    assert {u.event for u in team_store.skips.take()} == {f"{BAD}:9"}


async def test_the_follow_catch_up_steps_over_unreadable_rows(
    team_store: TeamStore, hostile: Hostile
) -> None:
    _plant(hostile)
    good = await _good(team_store, 2)
    scan = await team_store.scan_after(0, limit=3)
    assert scan.rows == 3 and scan.entries == ()  # three unreadable rows, looked at
    rest = await team_store.scan_after(scan.last, limit=100)
    assert {f"{e.origin}:{e.local_id}" for e in rest.entries} >= set(good)


async def test_timed_events_that_are_not_json_are_skipped(
    team_store: TeamStore, hostile: Hostile
) -> None:
    hostile.insert(
        "timed_events",
        {
            "origin": BAD,
            "local_id": 1,
            "at": "2026-11-24T03:00:00Z",
            "kind": "schedule",
            "timed": f"{BAD}:t1",
            "detail": "not json",
            "operator": "mallory",
        },
    )
    hostile.insert(
        "timed_events",
        {
            "origin": BAD,
            "local_id": 2,
            "at": "infinity",
            "kind": "schedule",
            "timed": f"{BAD}:t2",
            "detail": "{}",
            "operator": "mallory",
        },
    )
    hostile.insert("timed_claims", {"timed": f"{BAD}:t9", "at": "infinity", "executor": "mallory"})
    assert await team_store.timed_events() == []
    skipped = {u.event: u for u in team_store.skips.take()}
    assert set(skipped) == {f"{BAD}:e1", f"{BAD}:e2"}
    assert skipped[f"{BAD}:e1"].operator == "mallory"
    claims = await team_store.timed_claims()
    assert [(c.timed, c.at, c.executor) for c in claims] == [(f"{BAD}:t9", 0, "mallory")]


def test_a_notification_is_never_parsed_deeply() -> None:
    for payload in ("[" * 3000, "{" * 3000, '{"a":' * 3000, "x" * 100_000, "", "null", "[]"):
        change = _change("bottui_journal", payload)
        assert (change.table, change.count, change.last) == ("", 0, None)
    assert _change("bottui_journal", '{"table":"journal_entries","count":2,"last":7}').last == 7
    assert _change("bottui_journal", '{"table":"journal_entries","last":true}').last is None


async def test_a_megabyte_reason_is_refused_by_the_database(
    team_store: TeamStore, hostile: Hostile
) -> None:
    with pytest.raises(psycopg.errors.CheckViolation):
        hostile.entry(BAD, 1, reason="é" * 1_000_000)
    hostile.entry(BAD, 2, reason="x" * MAX_STORED_REASON)  # the longest accepted


async def test_a_push_bounds_an_older_longer_reason(team_store: TeamStore) -> None:
    long = entry(1, reason="INC " + "y" * 10_000 + " tail")
    pushed = await team_store.push([long])
    assert pushed.entries == 1
    page = await team_store.page(TeamQuery(reason="INC yyy"))
    (found,) = page.entries
    assert found.reason is not None and len(found.reason) == MAX_STORED_REASON
    assert found.reason.endswith("…")


async def test_the_trigrams_are_every_three_characters_of_the_lowered_reason(
    team_store: TeamStore, pg_admin_url: str
) -> None:
    samples = ["", "ab", "abc", "INC-4312 Credential", "İstanbul ÉCOLE", "a\tb\nc😀d", "x" * 4000]
    with psycopg.connect(pg_admin_url) as conn:
        for text in samples:
            row = conn.execute("SELECT bottui.reason_trigrams(%s)", (text,)).fetchone()
            assert row is not None
            lowered = conn.execute("SELECT lower(%s)", (text,)).fetchone()
            assert lowered is not None
            low = str(lowered[0])
            assert sorted(row[0]) == sorted(low[i : i + 3] for i in range(len(low) - 2)), text

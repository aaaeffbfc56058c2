"""Pushing is idempotent, exact, and the server records who wrote it (#13)."""

from __future__ import annotations

from datetime import timedelta
from uuid import uuid4

import psycopg
import pytest

from bottui.api.tokens import AccessToken
from bottui.store.team.page_query import TeamQuery
from bottui.store.team.pg_store import COPY_AT, TeamStore
from tests.team.events import T0, entry, outcome

HOSTILE = [
    "[bold red]markup[/] <b>html</b>",
    "esc \x1b[2J\x1b]0;title\x07 c1 \x9b31m bidi \u202e\u2066 zero\u200b width",
    "quotes ' \" ` \\ and '; DROP TABLE bottui.journal_entries; --",
    "new\nline\r\ttab \x7f del",
    "ü" * 128 + "日" * 64 + "🙂" * 64,
]


@pytest.mark.parametrize("size", [3, COPY_AT + 44])
async def test_a_push_repeated_stores_each_event_once(team_store: TeamStore, size: int) -> None:
    origin = uuid4()
    events = [entry(i, origin) for i in range(1, size + 1)]
    outcomes = [outcome(e) for e in events[: size // 2]]
    first = await team_store.push([*events, *outcomes])
    assert (first.entries, first.outcomes, first.duplicates) == (size, size // 2, 0)
    again = await team_store.push([*events, *outcomes])
    assert (again.entries, again.outcomes, again.duplicates) == (0, 0, size + size // 2)
    with psycopg.connect(team_store.target.url) as conn:
        assert conn.execute("SELECT count(*) FROM bottui.journal_entries").fetchone() == (size,)
        assert conn.execute("SELECT count(*) FROM bottui.journal_outcomes").fetchone() == (
            size // 2,
        )


async def test_an_outcome_before_its_entry_waits_for_it(team_store: TeamStore) -> None:
    first = entry(1)
    early = await team_store.push([outcome(first)])
    assert (early.outcomes, early.orphans) == (0, 1)
    await team_store.push([first])
    late = await team_store.push([outcome(first)])
    assert (late.outcomes, late.orphans) == (1, 0)


@pytest.mark.parametrize("hostile", HOSTILE)
async def test_hostile_strings_round_trip_exactly(team_store: TeamStore, hostile: str) -> None:
    sent = entry(
        1,
        operator=hostile,
        host=hostile,
        profile=hostile,
        account=hostile,
        project=hostile,
        reason=hostile,
        item_key=hostile,
        target={"rate_limiter_id": hostile, hostile: hostile},
        request_body={"name": hostile},
    )
    await team_store.push([sent, outcome(sent, result={"message": hostile})])
    (got,) = (await team_store.page(TeamQuery(project=hostile, operator=hostile))).entries
    for name in ("operator", "host", "profile", "account", "project", "reason", "item_key"):
        assert getattr(got, name) == hostile, name
    assert got.target == {"rate_limiter_id": hostile, hostile: hostile}
    assert got.request_body == {"name": hostile}
    assert got.result == {"message": hostile}
    with psycopg.connect(team_store.target.url) as conn:
        assert conn.execute("SELECT count(*) FROM bottui.journal_entries").fetchone() == (1,)


async def test_nul_and_lone_surrogates_in_text_become_replacement_characters(
    team_store: TeamStore,
) -> None:
    await team_store.push([entry(1, reason="a\x00b\ud800c", target={"id": "x\x00\udc00"})])
    (got,) = (await team_store.page()).entries
    assert got.reason == "a\ufffdb\ufffdc"
    # JSON text escapes both (\u0000, \udc00): kept exactly, as the local journal keeps them
    assert got.target == {"id": "x\x00\udc00"}


async def test_a_token_or_server_key_never_reaches_the_database(team_store: TeamStore) -> None:
    with pytest.raises(TypeError):
        await team_store.push([entry(1, request_body={"token": AccessToken("pat_x")})])
    await team_store.push([entry(2, request_body={"serverKey": "sk_live_canary"})])
    (got,) = (await team_store.page()).entries
    assert got.request_body == {"serverKey": "***"}


async def test_the_server_records_the_role_and_time_whatever_the_client_says(
    team_store: TeamStore,
) -> None:
    with psycopg.connect(team_store.target.url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO bottui.journal_entries (origin, local_id, db_role, received_at,"
            " started_at, operator, host, profile, base_url, account, project, operation,"
            " target) VALUES (%s, 1, 'mallory', '2000-01-01', now(), 'alice', 'h', 'p',"
            " 'u', 'a', 'p', 'o', '{}')",
            (uuid4(),),
        )
    (got,) = (await team_store.page()).entries
    assert got.db_role == "postgres"
    assert got.received_at.year > 2000


async def test_pages_filter_and_continue_newest_first(team_store: TeamStore) -> None:
    origin = uuid4()
    events = [
        entry(
            i,
            origin,
            project="shop-prod" if i % 2 else "shop-dev",
            operator="alice" if i % 3 else "bob",
            reason=f"INC-{i}" if i % 5 == 0 else None,
            run_id=7 if i > 20 else None,
            operation="grant.revoke" if i > 20 else "limiter.set-active",
        )
        for i in range(1, 31)
    ]
    words = {i: ("ok" if i % 4 else "api-error") for i in range(1, 26)}
    await team_store.push([*events, *(outcome(events[i - 1], w) for i, w in words.items())])

    async def ids(query: TeamQuery, limit: int = 4) -> list[int]:
        found, cursor = [], None
        while True:
            page = await team_store.page(query, limit=limit, cursor=cursor)
            found += [e.local_id for e in page.entries]
            if page.next is None:
                return found
            cursor = page.next

    everything = list(range(30, 0, -1))
    assert await ids(TeamQuery()) == everything
    cases = {
        TeamQuery(project="shop-prod"): lambda i: i % 2 == 1,
        TeamQuery(operator="bob"): lambda i: i % 3 == 0,
        TeamQuery(operator="bob", project="shop-dev"): lambda i: i % 6 == 0,
        TeamQuery(outcomes=frozenset({"api-error"})): lambda i: i <= 25 and i % 4 == 0,
        TeamQuery(outcomes=frozenset({"api-error", "ok"}), project="shop-dev"): (
            lambda i: i <= 25 and i % 2 == 0
        ),
        TeamQuery(unfinished=True): lambda i: i > 25,
        TeamQuery(unfinished=True, outcomes=frozenset({"ok"})): lambda i: False,
        TeamQuery(run=(origin, 7)): lambda i: i > 20,
        TeamQuery(run=(uuid4(), 7)): lambda i: False,
        TeamQuery(reason="inc-1"): lambda i: i in (10, 15),
        TeamQuery(reason="%"): lambda i: False,
        TeamQuery(operation="grant.revoke", account="acme"): lambda i: i > 20,
        TeamQuery(since=T0 + timedelta(seconds=10), until=T0 + timedelta(seconds=20)): (
            lambda i: 10 <= i < 20
        ),
        TeamQuery(since=T0 + timedelta(seconds=28), outcomes=frozenset({"ok"})): lambda i: False,
    }
    for query, wanted in cases.items():
        assert await ids(query) == [i for i in everything if wanted(i)], query

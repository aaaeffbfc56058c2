"""One inventory (#13): what one operator enters or learns is known to all.

Two operators, each with a home of their own (inventory, journal, outbox),
one real PostgreSQL and the sandbox over loopback. Facts are keyed by base
URL, account and project (the profiles' names differ); per field the newest
write by the server's clock wins; a store that is down never blocks an edit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from msgspec.structs import replace

from bottui.api.client import build_thresholds
from bottui.demo import prepare
from bottui.ops import inventory_edits, mutations, team_inventory
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.inventory.inventory_records import taught_by
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.push_events import Fact, FactKey
from bottui.store.team.store_target import check_store_url
from bottui.store.utc import parse_time
from tests.fixtures.postgres import PostgresServer
from tests.fixtures.teammates import migrated

PROJ = "shop-prod"
HOSTILE = "[b]x[/b]\x1b[2J'; DROP TABLE bottui.inventory_facts; --\u202e" + "é" * 200


def operator_session(
    root: Path, base_url: str, url: str, who: str, *, seeded: bool = False, **options: object
) -> Session:
    """``who``'s own bottui: a home of its own, one store. ``seeded``: the demo's inventory
    (profile "demo"); else an empty one under a profile named after ``who``."""
    session = prepare(root / who, base_url, **options)  # type: ignore[arg-type]
    profile = session.settings.profile_name if seeded else f"{who}-profile"
    session.update_settings(
        replace(session.settings, store_url=url, operator=who, profile_name=profile)
    )
    return session


async def share(session: Session) -> None:
    """What the session queued goes to the store now (the push thread's sync)."""
    team = await session.team()
    assert team is not None
    state = await team.sync()
    assert state.down is None, state.down


@pytest.fixture
async def team_url(pg_admin_url: str) -> str:
    return await migrated(pg_admin_url)


@pytest.fixture
async def alice_bob(
    tmp_path: Path, sandbox: SandboxServer, team_url: str
) -> AsyncIterator[tuple[Session, Session]]:
    alice = operator_session(tmp_path, sandbox.base_url, team_url, "alice", seeded=True)
    bob = operator_session(tmp_path, sandbox.base_url, team_url, "bob")
    try:
        yield alice, bob
    finally:
        await alice.aclose()
        await bob.aclose()


def facts(url: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT base_url, account, project, kind, item, field, value, operator,"
            " received_at FROM bottui.inventory_facts ORDER BY kind, item, field"
        ).fetchall()


async def test_alices_state_change_is_bobs_known_state_from_alices_change(
    alice_bob: tuple[Session, Session], team_url: str
) -> None:
    alice, bob = alice_bob
    # Bob's profile has another name and knows nothing yet but its account.
    assert await bob.inventory_store.limiter(DEMO_ACCOUNT, PROJ, "rl-login") is None
    await mutations.set_limiter(alice, DEMO_ACCOUNT, PROJ, "rl-login", False, confirmed=True)
    await share(alice)
    assert await team_inventory.refresh_shared(bob) > 0
    after = await bob.inventory_store.limiter(DEMO_ACCOUNT, PROJ, "rl-login")
    assert after is not None and after.is_active is False
    assert taught_by(after.source) == "alice"
    # Alice's own facts are not hers "from alice's change": her inventory wrote them first.
    assert await team_inventory.refresh_shared(alice) == 0
    mine = await alice.inventory_store.limiter(DEMO_ACCOUNT, PROJ, "rl-login")
    assert mine is not None and taught_by(mine.source) is None
    # The profiles' names differ; the facts know none of them.
    assert all("profile" not in str(row) for row in facts(team_url))


async def test_a_teammates_project_limiter_and_dimension_appear_and_removals_win(
    alice_bob: tuple[Session, Session],
) -> None:
    alice, bob = alice_bob
    await inventory_edits.add_project(alice, DEMO_ACCOUNT, "new-shop", "New shop")
    await inventory_edits.add_limiter(alice, DEMO_ACCOUNT, "new-shop", "rl-new", "New one")
    await inventory_edits.add_dimension(alice, DEMO_ACCOUNT, "new-shop", "bot-score", "Bot")
    await share(alice)
    await team_inventory.refresh_shared(bob)
    project = await bob.inventory_store.project(DEMO_ACCOUNT, "new-shop")
    assert project is not None and project.name == "New shop"
    limiter = await bob.inventory_store.limiter(DEMO_ACCOUNT, "new-shop", "rl-new")
    assert limiter is not None and limiter.name == "New one"
    assert taught_by(limiter.source) == "alice"
    assert await bob.inventory_store.dimension(DEMO_ACCOUNT, "new-shop", "bot-score") is not None
    # Bob forgets the limiter; then the project: for alice too (newest wins).
    await inventory_edits.forget_limiter(bob, DEMO_ACCOUNT, "new-shop", "rl-new")
    await share(bob)
    await team_inventory.refresh_shared(alice)
    assert await alice.inventory_store.limiter(DEMO_ACCOUNT, "new-shop", "rl-new") is None
    await inventory_edits.forget_project(bob, DEMO_ACCOUNT, "new-shop")
    await share(bob)
    await team_inventory.refresh_shared(alice)
    assert await alice.inventory_store.project(DEMO_ACCOUNT, "new-shop") is None
    # Alice adds it again, later: it is back for bob.
    await inventory_edits.add_project(alice, DEMO_ACCOUNT, "new-shop", None)
    await share(alice)
    await team_inventory.refresh_shared(bob)
    assert await bob.inventory_store.project(DEMO_ACCOUNT, "new-shop") is not None


async def test_thresholds_set_by_alice_are_bobs(alice_bob: tuple[Session, Session]) -> None:
    alice, bob = alice_bob
    dims = await alice.inventory_store.dimensions(DEMO_ACCOUNT, PROJ)
    dim = dims.items[0]
    values = build_thresholds(dim.name or "n", "0.91", "0.42")
    await mutations.set_thresholds(alice, DEMO_ACCOUNT, PROJ, dim.id, values, confirmed=True)
    await share(alice)
    await team_inventory.refresh_shared(bob)
    seen = await bob.inventory_store.dimension(DEMO_ACCOUNT, PROJ, dim.id)
    assert seen is not None and (seen.block, seen.challenge) == ("0.91", "0.42")
    assert taught_by(seen.source) == "alice"


async def test_newest_by_the_servers_clock_wins_whatever_the_laptops_say(
    tmp_path: Path, sandbox: SandboxServer, team_url: str
) -> None:
    """Alice's laptop runs a day ahead; she writes first, bob (right clock) after: bob wins,
    and the time a teammate sees is the server's, not alice's."""
    ahead = lambda: datetime.now(UTC) + timedelta(days=1)  # noqa: E731
    alice = operator_session(
        tmp_path, sandbox.base_url, team_url, "alice", seeded=True, clock=ahead
    )
    bob = operator_session(tmp_path, sandbox.base_url, team_url, "bob")
    carol = operator_session(tmp_path, sandbox.base_url, team_url, "carol")
    try:
        await mutations.set_limiter(alice, DEMO_ACCOUNT, PROJ, "rl-login", False, confirmed=True)
        await share(alice)
        await team_inventory.refresh_shared(carol)
        first = await carol.inventory_store.limiter(DEMO_ACCOUNT, PROJ, "rl-login")
        assert first is not None and taught_by(first.source) == "alice"
        assert parse_time(first.known_at) < datetime.now(UTC) + timedelta(hours=1)
        await mutations.set_limiter(bob, DEMO_ACCOUNT, PROJ, "rl-login", True, confirmed=True)
        await share(bob)
        await team_inventory.refresh_shared(carol)
        now = await carol.inventory_store.limiter(DEMO_ACCOUNT, PROJ, "rl-login")
        assert now is not None and now.is_active is True and taught_by(now.source) == "bob"
        assert parse_time(now.known_at) >= parse_time(first.known_at)
    finally:
        for session in (alice, bob, carol):
            await session.aclose()


async def test_a_write_cannot_carry_its_own_time(team_url: str) -> None:
    """The stamp trigger: an UPSERT naming ``received_at`` (a laptop's) gets the server's."""
    future = datetime.now(UTC) + timedelta(days=365)
    with psycopg.connect(team_url, autocommit=True) as conn:
        for value in ("true", "false"):  # the insert, then the ON CONFLICT update
            conn.execute(
                "INSERT INTO bottui.inventory_facts (base_url, account, project, kind, item,"
                " field, value, operator, received_at) VALUES ('u', 'a', 'p', 'limiter', 'l',"
                " 'active', %s, 'mallory', %s) ON CONFLICT (base_url, account, project, kind,"
                " item, field) DO UPDATE SET value = EXCLUDED.value,"
                " received_at = EXCLUDED.received_at",
                (value, future),
            )
        row = conn.execute("SELECT received_at FROM bottui.inventory_facts").fetchone()
    assert row is not None
    (stamp,) = row
    assert stamp < datetime.now(UTC) + timedelta(minutes=5)


async def test_hostile_strings_round_trip(
    team_url: str, alice_bob: tuple[Session, Session]
) -> None:
    store = TeamStore(check_store_url(team_url, {}), timeout=120)
    key = FactKey("http://h'?", HOSTILE, HOSTILE, "limiter", HOSTILE, "name")
    nul = FactKey("http://h'?", HOSTILE, HOSTILE, "limiter", "other", "name")
    try:
        # PostgreSQL's text holds no NUL: that one fact is left out, never the others.
        await store.put_facts([Fact(nul, "a\x00b", "x"), Fact(key, HOSTILE, HOSTILE)])
        (back,) = await store.facts("http://h'?", [HOSTILE])
    finally:
        await store.close()
    assert back.key == key and back.value == HOSTILE and back.operator == HOSTILE
    alice, _ = alice_bob
    name = "[red]n[/red] '; --"
    await inventory_edits.add_limiter(alice, DEMO_ACCOUNT, PROJ, "rl-" + "ü" * 200, name)
    await share(alice)
    assert any(row[6] == name and row[4] == "rl-" + "ü" * 200 for row in facts(team_url))


async def test_a_store_that_is_down_never_blocks_an_edit_and_what_waited_goes_later(
    alice_bob: tuple[Session, Session], postgres_server: PostgresServer, team_url: str
) -> None:
    if not postgres_server.restartable:
        pytest.fail("this test stops the server: BOTTUI_TEST_POSTGRES_URL's server cannot be")
    alice, bob = alice_bob
    postgres_server.stop()
    try:
        async with asyncio.timeout(10):  # local only: no wait on the dead store
            await inventory_edits.add_project(alice, DEMO_ACCOUNT, "while-down", "Down")
        assert await alice.inventory_store.project(DEMO_ACCOUNT, "while-down") is not None
        team = await alice.team()
        assert team is not None
        state = await team.sync()
        assert state.down is not None
        assert await team_inventory.refresh_shared(bob) == 0
        assert any("shared inventory" in w for w in bob.take_warnings())
    finally:
        postgres_server.start()
    await share(alice)
    await team_inventory.refresh_shared(bob)
    assert await bob.inventory_store.project(DEMO_ACCOUNT, "while-down") is not None


async def test_a_value_still_waiting_here_wins_over_the_stores(
    alice_bob: tuple[Session, Session], postgres_server: PostgresServer
) -> None:
    """Bob's newer edit, not yet pushed, is not undone by alice's older shared one."""
    alice, bob = alice_bob
    await inventory_edits.add_limiter(alice, DEMO_ACCOUNT, PROJ, "rl-x", "from alice")
    await share(alice)
    await inventory_edits.add_limiter(bob, DEMO_ACCOUNT, PROJ, "rl-x", "from bob")  # waits
    await team_inventory.refresh_shared(bob)
    mine = await bob.inventory_store.limiter(DEMO_ACCOUNT, PROJ, "rl-x")
    assert mine is not None and mine.name == "from bob"

"""Every reader of the team store against rows a role with only INSERT wrote (#26).

``bottui journal`` with every filter, ``--follow`` (and a NOTIFY bomb from a
role with no bottui rights), the collision check and the inventory merge go
on, and say what they skipped (event id, operator).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from bottui.ops import team_inventory
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.team.page_query import target_text
from tests.cli.helpers import cli
from tests.fixtures.insert_only import Hostile
from tests.fixtures.sandbox import scope
from tests.fixtures.teammates import bob_change, migrated, push
from tests.team.test_cli_collision import configure
from tests.team.test_follow import Follower
from tests.team.test_shared_inventory import alice_bob, team_url

__all__ = ["alice_bob", "team_url"]  # fixtures

PROJ = "shop-prod"
BAD = "0badbad0-0000-4000-8000-000000000000"


def _plant(hostile: Hostile, base_url: str, *, first: int = 1, when: str = "now") -> list[str]:
    """Unreadable entries of the demo's project; their event ids."""
    target = target_text({"rate_limiter_id": "rl-login"})
    common = {"base_url": base_url, "account": DEMO_ACCOUNT, "project": PROJ, "target": target}
    hostile.entry(BAD, first, **{**common, "target": "not json {"}, started_at=when)
    hostile.entry(BAD, first + 1, **common, started_at="infinity")
    hostile.entry(BAD, first + 2, **common, started_at=when, request_body="[" * 3000)
    return [f"{BAD}:{i}" for i in range(first, first + 3)]


@pytest.fixture
def store_env(pg_admin_url: str, pg_database: str, monkeypatch: pytest.MonkeyPatch) -> Hostile:
    url = asyncio.run(migrated(pg_admin_url))
    monkeypatch.setenv("BOTTUI_STORE_URL", url)
    return Hostile(url, f"mallory_{pg_database}")


@pytest.mark.parametrize(
    "filters",
    [
        [],
        ["--all"],
        ["--operator", "bob"],
        ["--operator", "mallory"],
        ["--reason", "INC-4312"],
        ["--reason", "hostile"],
        ["--project", PROJ],
        ["--account", DEMO_ACCOUNT, "--project", PROJ],
        ["--outcome", "ok"],
        ["--unfinished"],
        ["--operation", "limiter"],
        ["--since", "2000-01-01", "--until", "2100-01-01"],
        ["--jsonl"],
    ],
    ids=lambda f: " ".join(f) or "none",
)
def test_journal_reads_on_with_every_filter_and_says_what_it_skipped(
    env: SandboxServer, store_env: Hostile, filters: list[str]
) -> None:
    url = store_env.admin_url
    asyncio.run(push(url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=1)))
    bad = _plant(store_env, env.base_url)
    asyncio.run(push(url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=2)))
    done = cli("journal", *filters)
    assert done.code == 0, done.err
    assert "Traceback" not in done.err
    wants_bob = not ({"--operator", "--unfinished"} & set(filters)) or "bob" in filters
    if "hostile" in filters:
        wants_bob = False
    if wants_bob:
        assert done.out.count("bob") >= 2, done.out
    if not ({"--unfinished", "--outcome"} & set(filters)) and "bob" not in filters:
        # --until 2100 leaves the 'infinity' row out: not read, so nothing to say
        shown = bad if "--until" not in filters else [bad[0], bad[2]]
        for event in shown:
            assert event in done.err, done.err
        assert "mallory" in done.err
    for line in done.err.splitlines():
        if BAD in line:
            assert line.startswith("warning: skipped a team store row bottui cannot read")
    assert done.err.count(bad[0]) <= 1  # once each


def test_follow_survives_a_notify_bomb_and_skips_a_row_it_cannot_read(
    env: SandboxServer, store_env: Hostile
) -> None:
    url = store_env.admin_url
    follower = Follower("--jsonl", env={"BOTTUI_STORE_URL": url})
    try:
        got = None
        local_id = 0
        # Pushed until one arrives: the first may come before LISTEN holds.
        while got is None and local_id < 60:
            local_id += 1
            asyncio.run(push(url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=local_id)))
            got = follower.line(follower.out, timeout=2)
        assert got is not None, "no entry arrived within 120 s"
        # A role with no right on bottui's tables may NOTIFY anything on its channels.
        for payload in ("[" * 3000, "{" * 3000, "x" * 7000, '{"table": ["' + "[" * 500):
            store_env.notify("bottui_journal", payload)
            store_env.notify("bottui_inventory", payload)
        bad = _plant(store_env, env.base_url, first=100)
        asyncio.run(push(url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=99)))
        later = None
        while later is None or json.loads(later)["event_id"].rpartition(":")[2] != "99":
            later = follower.line(follower.out, timeout=60)
            assert later is not None, "the entry after the bomb never arrived"
        assert follower.proc.poll() is None
        said = []
        while len(said) < len(bad):
            line = follower.line(follower.err, timeout=60)
            assert line is not None, f"not said: {bad}, said: {said}"
            said.append(line)
        text = "\n".join(said)
        assert all(event in text for event in bad) and "mallory" in text
        assert "RecursionError" not in text and "Traceback" not in text
        assert follower.interrupt() == 130
    finally:
        follower.kill()


def test_the_collision_check_still_names_the_teammate(
    env: SandboxServer, store_env: Hostile
) -> None:
    configure(env.base_url)
    target = target_text({"rate_limiter_id": "rl-login"})
    common = {"base_url": env.base_url, "account": DEMO_ACCOUNT, "project": PROJ, "target": target}
    for i in range(1, 7):  # more than the check reads: they must not push bob out
        store_env.entry(BAD, i, **common, started_at="infinity" if i % 2 else "9999-01-01")
    store_env.entry(BAD, 7, **common, started_at="now", previous="nope")
    asyncio.run(push(store_env.admin_url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=1)))
    r = cli("limiter", "enable", "rl-login", *scope())
    assert r.code == 0, r.err
    assert "bob@bastion-2" in r.err and "disabled rl-login" in r.err
    assert f"{BAD}:7" in r.err and "mallory" in r.err


async def test_the_inventory_merge_skips_a_fact_it_cannot_read(
    alice_bob: tuple[Session, Session], team_url: str, pg_database: str, sandbox: SandboxServer
) -> None:
    _, bob = alice_bob
    hostile = Hostile(team_url, f"mallory_{pg_database}")
    for item, value in (("bot-score", "[" * 5000), ("geo", "not json")):
        hostile.insert(
            "inventory_facts",
            {
                "base_url": sandbox.base_url,
                "account": DEMO_ACCOUNT,
                "project": PROJ,
                "kind": "dimension",
                "item": item,
                "field": "thresholds",
                "value": value,
                "operator": "mallory",
            },
        )
    hostile.insert(
        "inventory_facts",
        {
            "base_url": sandbox.base_url,
            "account": DEMO_ACCOUNT,
            "project": PROJ,
            "kind": "limiter",
            "item": "rl-from-mallory",
            "field": "name",
            "value": "Fine",
            "operator": "mallory",
        },
    )
    bob.take_warnings()
    assert await team_inventory.refresh_shared(bob) > 0
    warnings = "\n".join(bob.take_warnings())
    assert "bot-score" in warnings and "geo" in warnings and "mallory" in warnings
    found = await bob.inventory_store.limiter(DEMO_ACCOUNT, PROJ, "rl-from-mallory")
    assert found is not None  # the readable fact went on


def test_started_at_infinity_no_longer_hides_the_journal(
    env: SandboxServer, store_env: Hostile, tmp_path: Path
) -> None:
    url = store_env.admin_url
    store_env.entry(BAD, 1, started_at="infinity")
    asyncio.run(push(url, bob_change(env.base_url, DEMO_ACCOUNT, PROJ, local_id=1)))
    done = cli("journal", "--json")
    assert done.code == 0, done.err
    doc = done.json()
    entries = doc["entries"] if isinstance(doc, dict) else doc
    assert any(e.get("operator") == "bob" for e in entries)
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM bottui.journal_entries").fetchone()
    assert row is not None and row[0] == 2  # both rows are there; one is said, not shown
    assert datetime.now(UTC).year < 2100

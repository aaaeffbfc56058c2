"""A team store configured mid-incident hides nothing and renumbers nothing (#27 item 3).

Seen: with ``BOTTUI_STORE_URL`` set mid-incident, ``bottui journal --limit 4``
printed one line though 416 local entries existed, ``store status`` said 0
waiting, and local ``#7`` read ``#8`` (the shared journal's id). Against the
real PostgreSQL of the fixture and the sandbox over loopback.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from uuid import uuid4

import pytest

from bottui.ops.team_push import open_team_store_url
from bottui.sandbox.server import SandboxServer
from bottui.store.keyring_tokens import TokenStore
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope
from tests.team.events import entry, outcome

BEFORE = 4


def _numbers(text: str) -> list[str]:
    """The entry reference that ends each line (``#7``, ``3f2a9c1b:17``)."""
    return [line.rsplit("  ", 1)[-1] for line in text.splitlines() if line]


def _teammate(url: str) -> str:
    """A teammate's change, pushed from a journal of its own, after everything here."""
    origin = uuid4()

    async def push() -> None:
        store = await open_team_store_url(url, {}, TokenStore(environ={}))
        try:
            event = entry(1, origin, started_at=datetime.now(UTC), operator="bob@bastion-2")
            await store.push([event, outcome(event)])
        finally:
            await store.close()

    asyncio.run(push())
    return f"{origin.hex[:8]}:1"


@pytest.fixture
def mid_incident(
    env: SandboxServer, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """``BEFORE`` changes journaled with no store, then the store configured, one more
    change; the numbers ``bottui journal`` showed before the store."""
    for n in range(BEFORE):
        verb = "disable" if n % 2 == 0 else "enable"
        assert cli("limiter", verb, "rl-login", *scope(), "--reason", f"INC-{n}").code == 0
    noted = _numbers(cli("journal").out)
    assert noted == [f"#{n}" for n in range(BEFORE, 0, -1)]
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    assert cli("store", "migrate").code == 0
    assert cli("limiter", "disable", "rl-login", *scope(), "--reason", "after").code == 0
    return noted


def test_the_local_history_still_shows_with_its_numbers(mid_incident: list[str]) -> None:
    done = cli("journal", "--limit", "10")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert len(lines) == BEFORE + 1, done.out
    # Local numbers never change: the new change is #5, the older ones keep theirs.
    assert _numbers(done.out) == [f"#{BEFORE + 1}", *mid_incident]
    assert "(not shared)" not in lines[0]
    assert all("(not shared)" in line for line in lines[1:])
    # The one command that shares them.
    assert "bottui store sync --backfill" in done.err
    docs = cli("journal", "--json").json()["entries"]
    assert [d["shared"] for d in docs] == [True] + [False] * BEFORE
    assert [d["id"] for d in docs] == list(range(BEFORE + 1, 0, -1))
    status = cli("store", "status", "--json").json()
    assert status["waiting"] == 0 and status["notShared"] == BEFORE
    text = cli("store", "status").out
    assert f"not shared: {BEFORE}" in text and "bottui store sync --backfill" in text


def test_a_backfill_shares_them_and_the_numbers_stay(
    mid_incident: list[str], pg_admin_url: str
) -> None:
    done = cli("store", "sync", "--backfill")
    assert done.code == 0, done.err
    shown = cli("journal")
    assert "(not shared)" not in shown.out and "--backfill" not in shown.err
    assert _numbers(shown.out) == [f"#{BEFORE + 1}", *mid_incident]
    assert cli("store", "status", "--json").json()["notShared"] == 0
    # A teammate's entry is named by a short form of its event id, never a local number.
    ref = _teammate(pg_admin_url)
    numbers = _numbers(cli("journal").out)
    assert numbers[0] == ref and re.fullmatch(r"[0-9a-f]{8}:1", ref)
    assert numbers[1:] == [f"#{BEFORE + 1}", *mid_incident]


def test_a_typed_id_is_a_local_number_in_the_shared_view_too(
    mid_incident: list[str], pg_admin_url: str
) -> None:
    _teammate(pg_admin_url)  # newer than every local entry: not below #3
    done = cli("journal", "--before", "3")
    assert done.code == 0, done.err
    assert _numbers(done.out) == ["#2", "#1"]
    # Paged through in small pages, the merged view gives each entry once, newest first.
    seen: list[str] = []
    page = cli("journal", "--limit", "2", "--json").json()
    seen += [d["event_id"] for d in page["entries"]]
    every = cli("journal", "--all", "--json").json()["entries"]
    assert len(every) == BEFORE + 2
    assert len({d["event_id"] for d in every}) == BEFORE + 2
    starts = [d["started_at"] for d in every]
    assert starts == sorted(starts, reverse=True)
    assert seen == [d["event_id"] for d in every[:2]]


def test_doctor_counts_them_too(mid_incident: list[str]) -> None:
    doctor = cli("doctor", "--json", *scope()).json()
    team = {c["id"]: c for c in doctor["checks"]}["team-store"]
    assert f"{BEFORE} journaled here before the store and not shared" in team["detail"]
    assert team["verdict"] == "warning" and "--backfill" in team["fix"]

"""Migrations, the version check, the append-only triggers and the operator role (#13)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import psycopg
import pytest

from bottui.store.team.pg_schema import SCHEMA_VERSION
from bottui.store.team.pg_store import TeamStore
from bottui.store.team.store_target import check_store_url
from bottui.store.team.team_errors import SchemaMissing, SchemaTooNew
from tests.fixtures.postgres import PostgresServer
from tests.team.events import entry, outcome

#: The team mode page of the docs (its set-up SQL).
TEAM_PAGE = Path(__file__).resolve().parents[2] / "docs" / "team.md"


def _store(url: str) -> TeamStore:
    return TeamStore(check_store_url(url, {}), timeout=120)


async def test_migrate_from_empty_then_again_applies_nothing(pg_admin_url: str) -> None:
    store = _store(pg_admin_url)
    try:
        assert (await store.status()).schema_version == 0
        first = await store.migrate()
        assert (first.before, first.after, first.applied) == (
            0,
            SCHEMA_VERSION,
            tuple(range(1, SCHEMA_VERSION + 1)),
        )
        second = await store.migrate()
        assert (second.before, second.after, second.applied) == (SCHEMA_VERSION,) * 2 + ((),)
        assert (await store.status()).schema_version == SCHEMA_VERSION
    finally:
        await store.close()


async def test_two_concurrent_migrates_take_turns(pg_admin_url: str) -> None:
    stores = [_store(pg_admin_url) for _ in range(3)]
    try:
        done = await asyncio.gather(*(s.migrate() for s in stores))
        assert sorted(len(d.applied) for d in done) == [0, 0, SCHEMA_VERSION]
        with psycopg.connect(pg_admin_url) as conn:
            assert conn.execute("SELECT count(*) FROM bottui.schema_versions").fetchone() == (
                SCHEMA_VERSION,
            )
    finally:
        for store in stores:
            await store.close()


async def test_an_app_older_than_the_schema_writes_nothing(team_store: TeamStore) -> None:
    with psycopg.connect(team_store.target.url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO bottui.schema_versions (version) VALUES (%s)", (SCHEMA_VERSION + 1,)
        )
    with pytest.raises(SchemaTooNew) as refused:
        await team_store.push([entry(1)])
    assert "newer than this bottui" in refused.value.title
    assert "Upgrade bottui" in refused.value.details
    with pytest.raises(SchemaTooNew):
        await team_store.migrate()
    with psycopg.connect(team_store.target.url) as conn:
        assert conn.execute("SELECT count(*) FROM bottui.journal_entries").fetchone() == (0,)


async def test_an_unmigrated_database_is_refused_with_the_command(pg_admin_url: str) -> None:
    store = _store(pg_admin_url)
    try:
        with pytest.raises(SchemaMissing) as refused:
            await store.push([entry(1)])
        assert "bottui store migrate" in refused.value.details
    finally:
        await store.close()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE bottui.journal_entries SET operator = 'mallory'",
        "DELETE FROM bottui.journal_entries",
        "TRUNCATE bottui.journal_entries CASCADE",
        "UPDATE bottui.journal_outcomes SET outcome = 'ok'",
        "DELETE FROM bottui.journal_outcomes",
        "TRUNCATE bottui.journal_outcomes",
    ],
)
async def test_the_journal_is_append_only_even_for_the_owner(
    team_store: TeamStore, statement: str
) -> None:
    first = entry(1)
    await team_store.push([first, outcome(first, "api-error")])
    # the fixture's role is a superuser, the owner of every table
    with (
        psycopg.connect(team_store.target.url, autocommit=True) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"),
    ):
        conn.execute(statement.encode())
    page = await team_store.page()
    assert [(e.operator, e.outcome) for e in page.entries] == [("alice@laptop", "api-error")]


def _readme_sql() -> str:
    """The set-up SQL of the docs' Team mode page (once the README's), as printed there."""
    text = TEAM_PAGE.read_text(encoding="utf-8")
    return re.search(r"```sql\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]


async def test_the_readme_operator_role_may_insert_and_select_only(
    team_store: TeamStore,
    postgres_server: PostgresServer,
    pg_database: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    role = f"alice_{pg_database}"
    setup = _readme_sql()
    setup = setup[setup.index("CREATE ROLE bottui_operator") :].replace("alice", role)
    # the docs' role names are per cluster; this test's own names keep tests apart
    setup = setup.replace("bottui_operator", f"op_{pg_database}")
    setup = setup.replace("'change-me'", "'s3cret-alice'")
    with psycopg.connect(team_store.target.url, autocommit=True) as conn:
        conn.execute(setup.encode())
    url = postgres_server.tcp_url(pg_database, role)
    alice = TeamStore(check_store_url(url, {}), timeout=120)
    monkeypatch.setenv("PGPASSWORD", "s3cret-alice")
    try:
        first = entry(1)
        done = await alice.push([first, outcome(first)])
        assert (done.entries, done.outcomes) == (1, 1)
        (shown,) = (await alice.page()).entries
        assert shown.db_role == role and shown.operator == "alice@laptop"
        with psycopg.connect(url, autocommit=True) as conn:
            for statement in (
                "UPDATE bottui.journal_entries SET reason = 'x'",
                "DELETE FROM bottui.journal_entries",
                "TRUNCATE bottui.journal_entries",
                "DELETE FROM bottui.journal_outcomes",
                "DROP TABLE bottui.journal_outcomes",
            ):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement.encode())
    finally:
        await alice.close()


async def test_the_readme_set_up_needs_a_superuser_only_for_its_first_step(
    postgres_server: PostgresServer, pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The docs' whole set-up (docs/team.md) as written: step 1 as an administrator, then the
    # migration and the grants as the owner, a role that is no superuser (#27's docs).
    sql = _readme_sql()
    step_1, rest = sql.split("-- 2.", 1)
    step_3 = rest[rest.index("GRANT") :]
    names = {
        "bottui_owner": f"own_{pg_database}",
        "bottui_operator": f"ops_{pg_database}",
        "alice": f"al_{pg_database}",
        "DATABASE bottui ": f"DATABASE db_{pg_database} ",
        "'change-me'": "'s3cret'",
    }

    def ours(text: str) -> str:
        for old, new in names.items():
            text = text.replace(old, new)
        return text

    statements = [s.strip() for s in ours(step_1).split(";") if s.strip()]
    statements = [
        "\n".join(ln for ln in s.splitlines() if not ln.startswith("--")) for s in statements
    ]
    statements = [s for s in statements if s.strip()]
    statements.append(f"ALTER ROLE own_{pg_database} PASSWORD 's3cret'")  # to log in over TCP
    for statement in statements:
        postgres_server.execute(statement)
    monkeypatch.setenv("PGPASSWORD", "s3cret")
    owner_url = postgres_server.tcp_url(f"db_{pg_database}", f"own_{pg_database}")
    with psycopg.connect(owner_url) as conn:
        assert not conn.execute(
            b"SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone()[0]  # type: ignore[index]
    owner = _store(owner_url)
    try:
        await owner.migrate()
    finally:
        await owner.close()
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(ours(step_3).encode())
    alice = TeamStore(
        check_store_url(postgres_server.tcp_url(f"db_{pg_database}", f"al_{pg_database}"), {}),
        timeout=120,
    )
    try:
        first = entry(1)
        done = await alice.push([first, outcome(first)])
        assert (done.entries, done.outcomes) == (1, 1)
    finally:
        await alice.close()

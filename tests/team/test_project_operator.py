"""A project and an operator together walk one index in page order (#13 scale, schema step 4)."""

from __future__ import annotations

from uuid import uuid4

import psycopg

from bottui.store.team.page_query import TeamQuery, page_sql
from bottui.store.team.pg_store import TeamStore
from tests.team.events import entry


async def test_project_and_operator_read_on_their_own_index(team_store: TeamStore) -> None:
    origin = uuid4()
    await team_store.push(
        [entry(i, origin, project=f"shop-{i % 3}", operator=f"op{i % 4}") for i in range(1, 61)]
    )
    query = TeamQuery(project="shop-1", operator="op2")
    page = await team_store.page(query, limit=100)
    wanted = [i for i in range(60, 0, -1) if i % 3 == 1 and i % 4 == 2]
    assert [e.local_id for e in page.entries] == wanted
    sql, params = page_sql(query, None, 51)
    with psycopg.connect(team_store.target.url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(str(r[0]) for r in conn.execute(("EXPLAIN " + sql).encode(), params))
    # walked newest first on the index: no sort of the project's entries
    assert "Index Scan Backward using journal_entries_project_operator" in plan, plan
    assert "Sort" not in plan, plan

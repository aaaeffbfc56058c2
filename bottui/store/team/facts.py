"""The shared inventory's facts: one value per (base URL, account, project, kind, item, field).

What one operator enters or learns (a project, a limiter's state, a
dimension's thresholds, a removal) becomes *facts* in ``bottui.inventory_facts``
(schema version 1). Per field the newest write wins, by the **server's**
clock: a write carries no time of its own; the table's trigger
(``stamp_writer``, BEFORE INSERT OR UPDATE) sets ``received_at`` to
``clock_timestamp()`` and ``db_role`` to ``session_user`` on the insert and on
the ``ON CONFLICT DO UPDATE`` alike, so a laptop whose clock is wrong cannot
make an old value look new. Every value is a bound parameter.

Kinds, items and fields (``item`` is ``""`` for the project itself):

* ``project``: ``exists`` (``yes``/``no``: a removal is ``no``), ``name``;
* ``limiter``/``dimension``: ``exists``, ``name``; a limiter's ``active``
  (``true``/``false``); a dimension's ``thresholds`` (JSON ``{"name",
  "block", "challenge"}``, the literals sent).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from bottui.api.tokens import Secret

if TYPE_CHECKING:
    from psycopg import AsyncConnection

#: The kinds of item a fact is about.
KINDS: Final = ("project", "limiter", "dimension")
#: An ``exists`` fact's values.
YES: Final = "yes"
NO: Final = "no"


class FactKey(NamedTuple):
    """Which field a fact sets: the table's primary key."""

    base_url: str
    account: str
    project: str
    kind: str
    item: str
    field: str


class Fact(NamedTuple):
    """One field's value as written (``operator``, ``origin``) and as stored
    (``received_at`` and ``db_role``, the server's; None before it is stored)."""

    key: FactKey
    value: str | None
    operator: str
    origin: str | None = None
    received_at: datetime | None = None
    db_role: str | None = None


_UPSERT: Final = (
    "INSERT INTO bottui.inventory_facts"
    " (base_url, account, project, kind, item, field, value, operator, origin)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (base_url, account, project, kind, item, field) DO UPDATE SET"
    " value = EXCLUDED.value, operator = EXCLUDED.operator, origin = EXCLUDED.origin,"
    " local_id = NULL"
)
_SELECT: Final = (
    "SELECT base_url, account, project, kind, item, field, value, operator, origin::text,"
    " received_at, db_role FROM bottui.inventory_facts"
    " WHERE base_url = %s AND account = ANY(%s) ORDER BY received_at, kind, item, field"
)


def _row(fact: Fact) -> tuple[object, ...]:
    row = (*fact.key, fact.value, fact.operator, fact.origin)
    if any(isinstance(v, Secret) for v in row):
        raise TypeError("a token must never be shared")
    if not all(v is None or isinstance(v, str) for v in row):
        raise TypeError("a fact holds text only")
    return row


def storable(fact: Fact) -> bool:
    """PostgreSQL's text cannot hold NUL: such a fact (only a name an answer gave can
    have one; ids cannot) is not shared, rather than blocking every push after it."""
    return not any(
        isinstance(v, str) and "\x00" in v for v in (*fact.key, fact.value, fact.operator)
    )


async def put_facts(conn: AsyncConnection[Any], facts: Sequence[Fact]) -> int:
    """Upsert ``facts`` (one pipelined ``executemany``); how many rows were written."""
    rows = [_row(f) for f in facts if storable(f)]
    if not rows:
        return 0
    cur = conn.cursor()
    await cur.executemany(_UPSERT, rows)
    return max(0, cur.rowcount)


async def read_facts(
    conn: AsyncConnection[Any], base_url: str, accounts: Sequence[str]
) -> tuple[Fact, ...]:
    """Every fact of ``accounts`` at ``base_url``, oldest first."""
    if not accounts:
        return ()
    cur = await conn.execute(_SELECT, (base_url, list(accounts)))
    rows = await cur.fetchall()
    return tuple(
        Fact(
            key=FactKey(*(str(v) for v in row[:6])),
            value=None if row[6] is None else str(row[6]),
            operator=str(row[7]),
            origin=None if row[8] is None else str(row[8]),
            received_at=row[9],
            db_role=None if row[10] is None else str(row[10]),
        )
        for row in rows
    )


__all__ = ["KINDS", "NO", "YES", "Fact", "FactKey", "put_facts", "read_facts", "storable"]

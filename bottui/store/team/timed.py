"""Timed changes in the team store (schema version 5): events, claims, results.

The events are each local journal's (pushed once each: ``ON CONFLICT DO
NOTHING`` on the event id). The claims are written here FIRST in team mode:
:func:`claim` is one INSERT whose success makes its caller the one executor,
across every machine, that sends the revert; no UPDATE privilege is needed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from bottui.store.journal.rows import from_micros, micros
from bottui.store.team.migrate import check_version, schema_version
from bottui.store.team.query import SELECT
from bottui.store.team.records import TeamEntry
from bottui.store.team.rows import NotJson, json_object
from bottui.store.team.times import sane
from bottui.store.team.unreadable import Unreadable
from bottui.store.timed_sqlite import TimedClaim, TimedEvent

if TYPE_CHECKING:
    from bottui.store.team.store import TeamStore


async def push_events(store: TeamStore, events: Sequence[TimedEvent]) -> int:
    """Store ``events`` (each once); how many were new."""
    if not events:
        return 0
    rows = []
    for event in events:
        origin, _, local = event.event_id.rpartition(":e")
        rows.append(
            (
                UUID(origin),
                int(local),
                from_micros(event.at),
                event.kind,
                event.timed,
                json.dumps(event.detail, ensure_ascii=False, sort_keys=True),
                event.operator,
                event.host,
            )
        )
    sql = (
        "INSERT INTO bottui.timed_events (origin, local_id, at, kind, timed, detail, operator,"
        " host) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT ON CONSTRAINT timed_events_event DO NOTHING"
    )
    async with store._session("sharing timed changes") as conn, conn.transaction():
        check_version(await schema_version(conn))
        async with conn.cursor() as cur:
            await cur.executemany(sql.encode(), rows)
            return max(cur.rowcount, 0)


async def events(store: TeamStore) -> list[TimedEvent]:
    """Every timed event of the team, oldest first.

    An event whose detail is not a JSON object, or whose time is not sane, is
    skipped and said (:attr:`TeamStore.skips`): the others go on.
    """
    sql = (
        "SELECT origin, local_id, kind, timed, at, detail, operator, host"
        " FROM bottui.timed_events ORDER BY id"
    )
    async with store._session("reading timed changes") as conn:
        cur = await conn.execute(sql.encode())
        rows = await cur.fetchall()
    out = []
    for row in rows:
        event_id, operator = f"{row[0]}:e{row[1]}", str(row[6])
        try:
            detail = json_object(row[5], optional=False)
        except NotJson as exc:
            store.skips.add(Unreadable("timed_events", event_id, operator, f"its detail is {exc}"))
            continue
        if not sane(row[4]):
            why = "its time is outside any sane range"
            store.skips.add(Unreadable("timed_events", event_id, operator, why))
            continue
        assert detail is not None
        out.append(
            TimedEvent(
                event_id=event_id,
                kind=row[2],
                timed=row[3],
                at=micros(row[4]),
                detail=detail,
                operator=operator,
                host=row[7],
            )
        )
    return out


async def claims(store: TeamStore) -> list[TimedClaim]:
    """Every claim, with its result when it has one.

    A claim always counts (it is what stops a second executor), whoever wrote
    it: a time that is not sane reads as the epoch (so it is in doubt at once),
    a result's detail that is not a JSON object as empty (said once).
    """
    sql = (
        "SELECT c.timed, c.at, c.executor, r.state, r.at, r.detail"
        " FROM bottui.timed_claims AS c LEFT JOIN bottui.timed_results AS r USING (timed)"
    )
    async with store._session("reading timed changes") as conn:
        cur = await conn.execute(sql.encode())
        rows = await cur.fetchall()
    out = []
    for row in rows:
        detail: dict[str, Any] | None = None
        try:
            detail = json_object(row[5])
        except NotJson as exc:
            store.skips.add(
                Unreadable("timed_results", str(row[0]), str(row[2]), f"its detail is {exc}")
            )
        result_at = None if row[4] is None else micros(row[4]) if sane(row[4]) else 0
        out.append(
            TimedClaim(
                row[0],
                micros(row[1]) if sane(row[1]) else 0,
                row[2],
                row[3],
                result_at,
                detail or {},
            )
        )
    return out


async def claim(store: TeamStore, timed: str, *, at: int, executor: str) -> bool:
    """Claim the revert of ``timed`` for the whole team; False: someone has already."""
    sql = (
        "INSERT INTO bottui.timed_claims (timed, at, executor) VALUES (%s, %s, %s)"
        " ON CONFLICT (timed) DO NOTHING RETURNING timed"
    )
    async with store._session("claiming a timed revert") as conn:
        cur = await conn.execute(sql.encode(), (timed, from_micros(at), executor))
        return await cur.fetchone() is not None


async def result(
    store: TeamStore, timed: str, state: str, detail: dict[str, Any], *, at: int
) -> None:
    """Record how the claimed revert of ``timed`` ended (once)."""
    sql = (
        "INSERT INTO bottui.timed_results (timed, at, state, detail) VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (timed) DO NOTHING"
    )
    text = json.dumps(detail, ensure_ascii=False, sort_keys=True)
    async with store._session("recording a timed revert") as conn:
        await conn.execute(sql.encode(), (timed, from_micros(at), state, text))


async def entries_by_event(store: TeamStore, event_ids: Sequence[str]) -> dict[str, TeamEntry]:
    """The shared entries of these event ids (``ORIGIN:ID``); those not shared are missing."""
    pairs = []
    for event_id in event_ids:
        origin, _, local = event_id.rpartition(":")
        pairs.append((UUID(origin), int(local)))
    if not pairs:
        return {}
    sql = (
        f"{SELECT} FROM bottui.journal_entries AS e"
        " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
        " WHERE (e.origin, e.local_id) IN (SELECT * FROM unnest(%s::uuid[], %s::bigint[]))"
    )
    async with store._session("reading timed changes") as conn:
        cur = await conn.execute(sql.encode(), ([p[0] for p in pairs], [p[1] for p in pairs]))
        rows = await cur.fetchall()
    found = store.readable(rows)
    return {f"{e.origin}:{e.local_id}": e for e in found}


__all__ = ["claim", "claims", "entries_by_event", "events", "push_events", "result"]

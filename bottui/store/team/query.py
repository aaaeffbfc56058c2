"""One page of the shared journal, newest first, each filter on an index.

Pages are ordered by ``(started_at DESC, id DESC)``: when the change was
made, then the server's order. Every index of ``journal_entries`` ends in
``(started_at, id)``, so the cursor (the last row's pair) continues the same
index range, and ``since``/``until`` bound it. Which index leads:

* ``outcomes``: ``journal_outcomes_word``, one ordered walk per word, merged;
* ``run``: ``journal_entries_run``; ``project``: ``journal_entries_project``;
  ``operator``: ``journal_entries_operator``;
* ``unfinished``: ``open_entries`` (only the entries without an outcome);
* otherwise ``journal_entries_time``.

Every other filter (account, profile, operation, reason, unfinished) is
checked on the rows the leading index gives; a page stops at ``limit`` rows.
``reason`` matches a part of the reason, case-insensitively.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final
from uuid import UUID

from bottui.store.journal_store import EntryQuery
from bottui.store.paging import Cursor

SELECT: Final = (
    "SELECT e.id, e.origin, e.local_id, e.db_role, e.received_at, e.started_at, e.operator,"
    " e.host, e.profile, e.reason, e.base_url, e.account, e.project, e.operation, e.target,"
    " e.request_body, e.previous, e.undo_of, e.run_id, e.item_key, o.finished_at, o.outcome,"
    " o.status, o.result, o.error, o.duration_ms, o.db_role, o.received_at"
)


@dataclass(frozen=True)
class TeamQuery:
    """Which shared entries to read; every filter given must match.

    The filters of :class:`~bottui.store.journal_store.EntryQuery`, plus
    ``operator`` (exact) and ``reason`` (a part of it, any case). A run is
    named by its origin and local run id (run ids are per journal file).
    """

    since: datetime | None = None
    until: datetime | None = None
    profile: str | None = None
    account: str | None = None
    project: str | None = None
    operation: str | None = None
    outcomes: frozenset[str] | None = None
    unfinished: bool = False
    run: tuple[UUID, int] | None = None
    operator: str | None = None
    reason: str | None = None


def from_entry_query(
    query: EntryQuery,
    *,
    operator: str | None = None,
    reason: str | None = None,
    run_origin: UUID | None = None,
) -> TeamQuery:
    """The shared journal's query for a local :class:`EntryQuery` (``before`` is a
    local id: paging goes by cursor here). A run is per journal file: its origin
    must be given with ``run_id``, else the run filter matches nothing of another's."""
    run = None
    if query.run_id is not None:
        run = (run_origin or UUID(int=0), int(query.run_id))
    return TeamQuery(
        since=query.since,
        until=query.until,
        profile=query.profile,
        account=query.account,
        project=query.project,
        operation=query.operation,
        outcomes=query.outcomes,
        unfinished=query.unfinished,
        run=run,
        operator=operator,
        reason=reason,
    )


def encode_cursor(started_at: datetime, entry_id: int) -> Cursor:
    """The cursor after a row: its start time (µs since the epoch, UTC) and server id."""
    delta = started_at.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return Cursor(f"pg:{micros}:{entry_id}")


def decode_cursor(cursor: Cursor) -> tuple[datetime, int]:
    """What :func:`encode_cursor` made; ValueError for anything else."""
    kind, micros, entry_id = cursor.token.split(":")
    if kind != "pg":
        raise ValueError("not a team store cursor")
    from datetime import timedelta

    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(micros))
    return moment, int(entry_id)


def _like(part: str) -> str:
    escaped = part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _checks(
    query: TeamQuery, *, skip: str, time: str = "e.started_at"
) -> tuple[list[str], list[object]]:
    where: list[str] = []
    params: list[object] = []
    for column, value in (
        ("e.profile", query.profile),
        ("e.account", query.account),
        ("e.project", query.project),
        ("e.operation", query.operation),
        ("e.operator", query.operator),
    ):
        if value is not None and column != skip:
            where.append(f"{column} = %s")
            params.append(value)
    if query.run is not None and skip != "run":
        where += ["e.origin = %s", "e.run_id IS NOT NULL", "e.run_id = %s"]
        params += [query.run[0], query.run[1]]
    if query.reason is not None:
        where.append("e.reason ILIKE %s")
        params.append(_like(query.reason))
    if query.since is not None:
        where.append(f"{time} >= %s")
        params.append(query.since)
    if query.until is not None:
        where.append(f"{time} < %s")
        params.append(query.until)
    return where, params


def page_sql(
    query: TeamQuery, after: tuple[datetime, int] | None, limit: int
) -> tuple[str, list[object]]:
    """The SELECT of one page and its bound parameters."""
    if query.unfinished and query.outcomes is not None:
        return "SELECT NULL WHERE false", []  # no outcome is one of these outcomes
    if query.outcomes is not None:
        return _by_outcome(query, after, limit)
    if query.run is not None:
        lead = "run"
        order = "e.origin DESC, e.run_id DESC, e.started_at DESC, e.id DESC"
    elif query.project is not None:
        # before the operator: a project holds far fewer entries than an operator
        lead, order = "e.project", "e.project DESC, e.started_at DESC, e.id DESC"
    elif query.operator is not None:
        lead, order = "e.operator", "e.operator DESC, e.started_at DESC, e.id DESC"
    else:
        lead, order = "", "e.started_at DESC, e.id DESC"
    where, params = _checks(query, skip="")
    del lead  # every equality stays in WHERE; the ORDER BY picks the index
    sql = f"{SELECT} FROM bottui.journal_entries AS e"
    if query.unfinished:
        # the few entries without an outcome, walked in page order
        sql = f"{SELECT} FROM bottui.open_entries AS u"
        sql += " JOIN bottui.journal_entries AS e ON e.id = u.entry_id"
        where = [w.replace("e.started_at", "u.started_at") for w in where]
        order = "u.started_at DESC, u.entry_id DESC"
        if after is not None:
            where.append("(u.started_at, u.entry_id) < (%s, %s)")
            params += [after[0], after[1]]
    elif after is not None:
        where.append("(e.started_at, e.id) < (%s, %s)")
        params += [after[0], after[1]]
    sql += " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return f"{sql} ORDER BY {order} LIMIT %s", [*params, limit]


def _by_outcome(
    query: TeamQuery, after: tuple[datetime, int] | None, limit: int
) -> tuple[str, list[object]]:
    parts: list[str] = []
    params: list[object] = []
    for word in sorted(query.outcomes or ()):
        where, found = _checks(query, skip="", time="o.entry_started_at")
        where = ["o.outcome = %s", *where]
        found = [word, *found]
        if after is not None:
            where.append("(o.entry_started_at, o.entry_id) < (%s, %s)")
            found += [after[0], after[1]]
        parts.append(
            f"({SELECT} FROM bottui.journal_outcomes AS o"
            " JOIN bottui.journal_entries AS e ON e.id = o.entry_id"
            f" WHERE {' AND '.join(where)}"
            " ORDER BY o.outcome DESC, o.entry_started_at DESC, o.entry_id DESC LIMIT %s)"
        )
        params += [*found, limit]
    if not parts:
        return "SELECT NULL WHERE false", []
    if len(parts) == 1:
        return parts[0][1:-1], params
    # started_at is column 6, id column 1 of SELECT
    return (
        " UNION ALL ".join(parts) + " ORDER BY 6 DESC, 1 DESC LIMIT %s",
        [*params, limit],
    )


__all__ = ["TeamQuery", "decode_cursor", "encode_cursor", "from_entry_query", "page_sql"]

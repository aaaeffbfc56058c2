"""The shared journal's reads as SQL: one page newest first, each filter on an index; one
target's recent changes (the collision warning, #13).

Pages are ordered by ``(started_at DESC, id DESC)``: when the change was
made, then the server's order. Every B-tree of ``journal_entries`` ends in
``(started_at, id)``, so the cursor (the last row's pair) continues the same
index range, and ``since``/``until`` bound it. Which index leads:

* ``outcomes``: ``journal_outcomes_word``, one ordered walk per word, merged;
* ``run``: ``journal_entries_run``; ``project`` with ``operator``:
  ``journal_entries_project_operator``; ``project``: ``journal_entries_project``;
  ``operator``: ``journal_entries_operator``;
* ``unfinished``: ``open_entries`` (only the entries without an outcome);
* otherwise ``journal_entries_time``.

Every other filter (account, profile, operation, reason, unfinished) is
checked on the rows the leading index gives; a page stops at ``limit`` rows.
``reason`` matches a part of the reason, case-insensitively.

A reason part of 3 characters or more (without an outcome or unfinished
filter, whose index still leads) is a :class:`PagePlan` of two steps
(:func:`page_plan`), because no one index serves both a common and a rare
reason: first the newest :func:`reason_window` rows of the other filters,
their index in page order, checked for the reason (a common reason fills its
page there); when they do not fill it, the trigram index
(``journal_entries_reason``, schema step 3) finds every entry holding the
part, and those are sorted. Left to itself, the planner, which cannot
estimate a substring's rarity, walks the time index for a rare reason
(every row) or the trigram index for a common one (a heap read per match).

One change's recent history (:func:`recent_sql`) is read on
``journal_entries_target`` (schema version 2): the project, the target's
exact text (the canonical JSON every push writes, :func:`target_text`) and
the start time, single changes only (a bulk run's items are never a
limiter's or a dimension's). The window is measured by the database server's
clock, not the laptops'; a start time more than a day ahead of it is no
recent change.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final
from uuid import UUID

import msgspec

from bottui.store.journal.journal_records import EntryQuery, Filters
from bottui.store.journal.journal_rows import from_micros, micros
from bottui.store.paging import Cursor
from bottui.store.redact import redacted_json
from bottui.store.team.read_rows import OddTime

SELECT: Final = (
    "SELECT e.id, e.origin, e.local_id, e.db_role, e.received_at, e.started_at, e.operator,"
    " e.host, e.profile, e.reason, e.base_url, e.account, e.project, e.operation, e.target,"
    " e.request_body, e.previous, e.undo_of, e.run_id, e.item_key, o.finished_at, o.outcome,"
    " o.status, o.result, o.error, o.duration_ms, o.db_role, o.received_at"
)
#: An entry with its outcome, if any: what :data:`SELECT` reads from.
ENTRIES_FROM: Final = (
    " FROM bottui.journal_entries AS e LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
)


#: Where a page starts: after this row's (start time, server id); the time may be odd.
After = tuple[datetime | str, int]

#: A reason search first looks at this many of the newest rows, at least ...
REASON_WINDOW_MIN: Final = 5_000
#: ... and this many per row of the page: a reason on 1 entry in 100 fills its page there.
REASON_WINDOW_PER_ROW: Final = 100


class TeamQuery(Filters, frozen=True):
    """Which shared entries to read: the :class:`~bottui.store.journal.journal_records.Filters`
    of a local read, and a run named by its origin and local run id (run ids are
    per journal file)."""

    run: tuple[UUID, int] | None = None


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
    shared: dict[str, Any] = {name: getattr(query, name) for name in Filters.__struct_fields__}
    shared.update(operator=operator, reason=reason)
    return TeamQuery(**shared, run=run)


def encode_cursor(started_at: datetime | str, entry_id: int) -> Cursor:
    """The cursor after a row: its start time (µs since the epoch, UTC) and server id.

    A time Python cannot hold (:class:`~bottui.store.team.read_rows.OddTime`, a
    hostile row's ``infinity``) is kept as PostgreSQL's text, which it reads
    back exactly: the next page goes on right after that row.
    """
    if not isinstance(started_at, datetime):
        return Cursor(f"pgt:{int(entry_id)}:{started_at}")
    return Cursor(f"pg:{micros(started_at)}:{entry_id}")


def decode_cursor(cursor: Cursor) -> tuple[datetime | str, int]:
    """What :func:`encode_cursor` made; ValueError for anything else."""
    if cursor.token.startswith("pgt:"):
        _, entry_id, text = cursor.token.split(":", 2)
        return OddTime(text), int(entry_id)
    kind, us, entry_id = cursor.token.split(":")
    if kind != "pg":
        raise ValueError("not a team store cursor")
    return from_micros(int(us)), int(entry_id)


def _like(part: str) -> str:
    escaped = part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _checks(
    query: TeamQuery, *, skip: str, time: str = "e.started_at", reason: bool = True
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
    if query.reason is not None and reason:
        where.append("e.reason ILIKE %s")
        params.append(_like(query.reason))
    if query.since is not None:
        where.append(f"{time} >= %s")
        params.append(query.since)
    if query.until is not None:
        where.append(f"{time} < %s")
        params.append(query.until)
    return where, params


def _entry_order(query: TeamQuery) -> str:
    """The ORDER BY of ``journal_entries`` that picks the leading index; every
    equality stays in WHERE."""
    if query.run is not None:
        return "e.origin DESC, e.run_id DESC, e.started_at DESC, e.id DESC"
    if query.project is not None and query.operator is not None:
        return "e.project DESC, e.operator DESC, e.started_at DESC, e.id DESC"
    if query.project is not None:
        # before the operator: a project holds far fewer entries than an operator
        return "e.project DESC, e.started_at DESC, e.id DESC"
    if query.operator is not None:
        return "e.operator DESC, e.started_at DESC, e.id DESC"
    return "e.started_at DESC, e.id DESC"


def page_sql(query: TeamQuery, after: After | None, limit: int) -> tuple[str, list[object]]:
    """The SELECT of one page and its bound parameters."""
    if query.unfinished and query.outcomes is not None:
        return "SELECT NULL WHERE false", []  # no outcome is one of these outcomes
    if query.outcomes is not None:
        return _by_outcome(query, after, limit)
    order = _entry_order(query)
    where, params = _checks(query, skip="")
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


def _by_outcome(query: TeamQuery, after: After | None, limit: int) -> tuple[str, list[object]]:
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


class PagePlan(msgspec.Struct, frozen=True):
    """How to read one page: ``near`` first when there is one, else ``sql`` alone.

    ``near`` returns the page's rows, each followed by how many rows of the
    window it looked at (one all-NULL row carries that count when none
    matched). It stands when it filled the page or looked at fewer rows than
    ``window`` (nothing older is left); otherwise ``sql`` reads the page.
    """

    sql: str
    params: list[object]
    near: tuple[str, list[object]] | None = None
    window: int = 0


def reason_window(limit: int) -> int:
    """How many of the newest rows a reason search checks before its index."""
    return max(REASON_WINDOW_MIN, REASON_WINDOW_PER_ROW * limit)


def page_plan(query: TeamQuery, after: After | None, limit: int) -> PagePlan:
    """The statements of one page (see the module's docstring)."""
    part = query.reason
    if (
        part is None
        or len(part) < 3  # no trigram in it: the index cannot narrow anything
        # the outcome index, or the few unfinished entries, lead as before
        or query.outcomes is not None
        or query.unfinished
    ):
        return PagePlan(*page_sql(query, after, limit))
    window = reason_window(limit)
    return PagePlan(
        *_indexed_sql(query, part, after, limit),
        near=_near_sql(query, part, after, limit, window),
        window=window,
    )


def _near_sql(
    query: TeamQuery, part: str, after: After | None, limit: int, window: int
) -> tuple[str, list[object]]:
    """The newest ``window`` rows of the other filters (ids, times and reasons, on
    their leading index), the page among them read whole, and the window's count."""
    where, params = _checks(query, skip="", reason=False)
    if after is not None:
        where.append("(e.started_at, e.id) < (%s, %s)")
        params += [after[0], after[1]]
    found = f" WHERE {' AND '.join(where)}" if where else ""
    return (
        "WITH w AS MATERIALIZED (SELECT e.id, e.started_at, e.reason"
        f" FROM bottui.journal_entries AS e{found}"
        f" ORDER BY {_entry_order(query)} LIMIT %s),"
        " m AS (SELECT w.id FROM w WHERE w.reason ILIKE %s"
        " ORDER BY w.started_at DESC, w.id DESC LIMIT %s)"
        f" {SELECT}, s.seen FROM (SELECT count(*) AS seen FROM w) AS s"
        " LEFT JOIN m ON true LEFT JOIN bottui.journal_entries AS e ON e.id = m.id"
        " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
        " ORDER BY e.started_at DESC, e.id DESC",
        [*params, window, _like(part), limit],
    )


def _indexed_sql(
    query: TeamQuery, part: str, after: After | None, limit: int
) -> tuple[str, list[object]]:
    """Every entry holding the part, by the trigram index, then sorted.

    MATERIALIZED keeps the planner from walking the time index instead.
    """
    where, params = _checks(query, skip="", reason=False)
    where = [
        "e.reason IS NOT NULL",
        "bottui.reason_trigrams(e.reason) @> bottui.reason_trigrams(%s)",
        "e.reason ILIKE %s",
        *where,
    ]
    params = [part, _like(part), *params]
    if after is not None:
        where.append("(e.started_at, e.id) < (%s, %s)")
        params += [after[0], after[1]]
    sql = (
        "WITH hit AS MATERIALIZED (SELECT e.id, e.started_at FROM bottui.journal_entries AS e"
        f" WHERE {' AND '.join(where)}), page AS (SELECT hit.id FROM hit"
        " ORDER BY hit.started_at DESC, hit.id DESC LIMIT %s)"
        f" {SELECT} FROM page JOIN bottui.journal_entries AS e ON e.id = page.id"
        " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
        " ORDER BY e.started_at DESC, e.id DESC"
    )
    return sql, [*params, limit]


#: At most this many recent changes are read (the newest).
RECENT_LIMIT: Final = 5


def target_text(target: Mapping[str, Any]) -> str:
    """The stored text of ``target``, as a push writes it (sorted keys, redacted)."""
    found = redacted_json(target, sort_keys=True)
    if found is None:
        raise TypeError("target must be a JSON object")
    return found


def recent_sql(
    base_url: str, account: str, project: str, target: Mapping[str, Any], seconds: float
) -> tuple[str, list[object]]:
    """The SELECT of one target's changes in the last ``seconds``, newest first."""
    sql = (
        f"{SELECT}{ENTRIES_FROM}"
        " WHERE e.project = %s AND e.target = %s AND e.run_id IS NULL"
        " AND e.started_at >= now() - make_interval(secs => %s)"
        # a time ahead of the server's is not a recent change (a hostile
        # 'infinity' would otherwise head every check and push real ones out)
        " AND e.started_at < now() + make_interval(days => 1)"
        " AND e.base_url = %s AND e.account = %s"
        " ORDER BY e.project DESC, e.target DESC, e.started_at DESC, e.id DESC LIMIT %s"
    )
    return sql, [project, target_text(target), float(seconds), base_url, account, RECENT_LIMIT]

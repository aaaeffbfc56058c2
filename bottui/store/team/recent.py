"""Who changed one limiter or dimension lately: the collision warning's query (#13).

One change's recent history is read on ``journal_entries_target`` (schema
version 2): the project, the target's exact text (the canonical JSON every
push writes, :func:`target_text`) and the start time, single changes only
(a bulk run's items are never a limiter's or a dimension's). The window is
measured by the database server's clock, not the laptops'; a start time
more than a day ahead of it is no recent change (see
:mod:`bottui.store.team.times`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bottui.store.redact import redacted_json
from bottui.store.team.query import SELECT

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
        f"{SELECT} FROM bottui.journal_entries AS e"
        " LEFT JOIN bottui.journal_outcomes AS o ON o.entry_id = e.id"
        " WHERE e.project = %s AND e.target = %s AND e.run_id IS NULL"
        " AND e.started_at >= now() - make_interval(secs => %s)"
        # a time ahead of the server's is not a recent change (a hostile
        # 'infinity' would otherwise head every check and push real ones out)
        " AND e.started_at < now() + make_interval(days => 1)"
        " AND e.base_url = %s AND e.account = %s"
        " ORDER BY e.project DESC, e.target DESC, e.started_at DESC, e.id DESC LIMIT %s"
    )
    return sql, [project, target_text(target), float(seconds), base_url, account, RECENT_LIMIT]


__all__ = ["RECENT_LIMIT", "recent_sql", "target_text"]

"""The journal's tables of timed changes (schema version 6, issue #15).

History, append-only like every other journal table (triggers refuse
``UPDATE`` and ``DELETE``):

* ``timed_events``: the schedule of a timed change and what later changed it:
  ``schedule`` (written right after the change's *started* record, before
  the request is sent, so a change is never made without its revert being
  on record), ``extend`` (a new due time) and ``cancel`` (keep the change).
  ``timed`` names the timed change: the event id of its ``schedule``
  (``ORIGIN:tID``, unique across journal files), so an extend written on
  another machine names the same one. ``detail`` is JSON (see
  :mod:`bottui.store.timed_sqlite`). Never edited: the state of a timed
  change is read from its events.
* ``timed_claims``: one row per revert, its key ``timed`` (PRIMARY KEY: a
  second claim of the same revert fails), committed before the revert is
  sent; it names the executor. A claim without a result is *unfinished* and
  is never sent again.
* ``timed_results``: how a claimed revert ended (``reverted``,
  ``superseded``, ``failed``, ``unknown``), at most one per claim.

Bookkeeping, not history (rows replaced): ``timed_seen``, when each kind of
executor (``tui``, ``run-due``) on each machine was last seen, so a
confirmation can warn that no executor is known; ``timed_push``, how far
each team store has received ``timed_events`` (the claims and results of a
team go to the team store directly).
"""

from __future__ import annotations

from typing import Final

from bottui.store.journal_schema import append_only

TABLES_V6: Final = (
    """
    CREATE TABLE timed_events (
        id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('schedule', 'extend', 'cancel')),
        timed TEXT NOT NULL,
        detail TEXT NOT NULL,
        operator TEXT NOT NULL,
        host TEXT
    )
    """,
    "CREATE INDEX timed_events_by_key ON timed_events (timed, id)",
    """
    CREATE TABLE timed_claims (
        timed TEXT PRIMARY KEY,
        at INTEGER NOT NULL,
        executor TEXT NOT NULL
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE timed_results (
        timed TEXT PRIMARY KEY REFERENCES timed_claims (timed),
        at INTEGER NOT NULL,
        state TEXT NOT NULL,
        detail TEXT NOT NULL
    ) WITHOUT ROWID
    """,
    *append_only(("timed_events", "timed_claims", "timed_results")),
    """
    CREATE TABLE timed_seen (
        kind TEXT NOT NULL,
        executor TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (kind, executor)
    ) WITHOUT ROWID
    """,
    "CREATE TABLE timed_push (store TEXT PRIMARY KEY, pushed_id INTEGER NOT NULL)",
)

__all__ = ["TABLES_V6"]

"""What a bulk run's journal knows of its item keys: the lookups of ``--resume``.

A resume asks for every id of a run, a chunk of input at a time, so these
are kept lean: the chunk's keys go to SQLite as one blob when they are all
hex digests of one length (a bulk run's keys), cut into keys in SQL (no
per-key parameter, no temporary table of an ``IN`` list) and looked up in
``items_by_key``; the outcomes of the ids found are read as one range of
``results`` when those ids lie close together (a chunk is journaled in input
order), by id otherwise.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Final

from bottui.store.journal_codec import lookup_key
from bottui.store.journal_records import SETTLED_OUTCOMES
from bottui.store.journal_store import EntryId, ItemState

#: Item keys per ``IN (...)`` when the keys are not one blob.
_KEYS_PER_QUERY: Final = 500
_SETTLED_WORDS: Final = frozenset(str(o) for o in SETTLED_OUTCOMES)

#: Keys of one length passed as one blob, cut in SQL.
_BY_BLOB: Final = (
    "WITH RECURSIVE k(i, key) AS (SELECT 0, substr(?1, 1, ?2) UNION ALL "
    "SELECT i + 1, substr(?1, (i + 1) * ?2 + 1, ?2) FROM k WHERE i + 1 < ?3) "
    "SELECT k.key, e.id FROM k JOIN items AS e ON e.run_id = ?4 AND e.item_key = k.key"
)
_RESULTS_IN_RANGE: Final = "SELECT entry_id, word FROM results WHERE entry_id BETWEEN ? AND ?"
_RESULTS_OF: Final = (
    "SELECT o.entry_id, o.word FROM json_each(?) AS j JOIN results AS o ON o.entry_id = j.value"
)


def _as_blob(keys: Sequence[str]) -> tuple[bytes, int] | None:
    """The keys as one blob and the bytes per key, when each is hex of one even length."""
    if not keys:
        return None
    width = len(keys[0])
    if width == 0 or width % 2 or any(len(k) != width for k in keys):
        return None
    joined = "".join(keys)
    try:
        blob = bytes.fromhex(joined)
    except ValueError:
        return None
    # fromhex also takes capitals and spaces: only text it gives back exactly.
    return (blob, width // 2) if blob.hex() == joined else None


def _attempts(conn: sqlite3.Connection, run_id: int, keys: Sequence[str]) -> list[tuple[str, int]]:
    """(key, entry id) of every attempt of ``keys`` in ``run_id``."""
    packed = _as_blob(keys)
    if packed is not None:
        blob, width = packed
        rows = conn.execute(_BY_BLOB, (blob, width, len(keys), run_id)).fetchall()
        return [(key.hex(), entry_id) for key, entry_id in rows]
    by_stored = {lookup_key(key): key for key in keys}
    stored = list(by_stored)
    found: list[tuple[str, int]] = []
    for start in range(0, len(stored), _KEYS_PER_QUERY):
        part = stored[start : start + _KEYS_PER_QUERY]
        marks = ", ".join("?" * len(part))
        found += [
            (by_stored[key], entry_id)
            for key, entry_id in conn.execute(
                f"SELECT item_key, id FROM items WHERE run_id = ? AND item_key IN ({marks})",
                (run_id, *part),
            )
        ]
    return found


def _outcomes(conn: sqlite3.Connection, ids: list[int]) -> dict[int, int]:
    """Word id of each of ``ids`` that has an outcome."""
    if not ids:
        return {}
    low, high = min(ids), max(ids)
    if high - low < 4 * len(ids) + 64:
        # Close together: one walk of the range beats a seek per id.
        return dict(conn.execute(_RESULTS_IN_RANGE, (low, high)).fetchall())
    return dict(conn.execute(_RESULTS_OF, ("[" + ",".join(map(str, ids)) + "]",)).fetchall())


def item_states(conn: sqlite3.Connection, run_id: int, keys: Sequence[str]) -> dict[str, ItemState]:
    """What ``run_id`` knows of each of ``keys`` (a key never attempted is absent)."""
    attempts = _attempts(conn, run_id, list(dict.fromkeys(keys)))
    if not attempts:
        return {}
    words: dict[int, str] = dict(conn.execute("SELECT id, word FROM words").fetchall())
    settled = {i for i, word in words.items() if word in _SETTLED_WORDS}
    outcome_of = _outcomes(conn, [entry_id for _, entry_id in attempts])
    attempts.sort(key=lambda a: a[1])  # several attempts of a key: oldest first
    states: dict[str, Any] = {}
    for key, entry_id in attempts:
        word = outcome_of.get(entry_id)
        was = states.get(key)
        if was is None:
            if word is None:
                states[key] = ItemState(False, None, (EntryId(entry_id),))
            else:
                states[key] = ItemState(word in settled, words[word], ())
        elif word is None:
            states[key] = ItemState(
                was.settled, was.last_outcome, (*was.unfinished, EntryId(entry_id))
            )
        else:
            states[key] = ItemState(was.settled or word in settled, words[word], was.unfinished)
    return states


__all__ = ["item_states"]

"""What a bulk run's journal knows of its item keys: the lookups of ``--resume``.

A resume asks for every id of a run, a chunk of input at a time, so these
are kept lean: the chunk's keys go to SQLite as one blob when they are all
hex digests of one length, cut into keys in SQL, or as one JSON array when
they are text (no per-key parameter, no temporary table of an ``IN`` list). A chunk's first
attempts lie together (journaled in input order): found by walking that
stretch of ids once instead of one index lookup per key (about 3 µs each);
later attempts (``again``) are looked up. The outcomes of the ids found are
read as one range of ``results`` when those ids lie close together, by id
otherwise.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Final

from bottui.store.journal_codec import lookup_key
from bottui.store.journal_records import SETTLED_OUTCOMES
from bottui.store.journal_store import EntryId, ItemState

#: Item keys per ``IN (...)`` when the keys are not one blob.
_KEYS_PER_QUERY: Final = 500
_SETTLED_WORDS: Final = frozenset(str(o) for o in SETTLED_OUTCOMES)

#: Keys of one length passed as one blob, cut in SQL, each looked up in the
#: index of first attempts (``items_by_key``) or of later ones
#: (``items_again``). CROSS JOIN: the keys lead (else SQLite may walk the
#: run's whole index and probe the keys).
_BY_BLOB: Final = (
    "WITH RECURSIVE k(i, key) AS (SELECT 0, substr(?1, 1, ?2) UNION ALL "
    "SELECT i + 1, substr(?1, (i + 1) * ?2 + 1, ?2) FROM k WHERE i + 1 < ?3) "
    "SELECT k.key, e.id FROM k CROSS JOIN items AS e INDEXED BY {index} "
    "ON e.run_id = ?4 AND e.item_key = k.key AND e.again = {again}"
)
_FIRSTS: Final = _BY_BLOB.format(index="items_by_key", again=0)
_AGAINS: Final = _BY_BLOB.format(index="items_again", again=1)
#: Text keys (exact ids, not digests) passed as one JSON array.
_BY_TEXT: Final = (
    "SELECT k.value, e.id FROM json_each(?1) AS k CROSS JOIN items AS e INDEXED BY {index} "
    "ON e.run_id = ?2 AND e.item_key = k.value AND e.again = {again}"
)
_TEXT_FIRSTS: Final = _BY_TEXT.format(index="items_by_key", again=0)
_TEXT_AGAINS: Final = _BY_TEXT.format(index="items_again", again=1)
_HAS_AGAIN: Final = (
    "SELECT 1 FROM items INDEXED BY items_again WHERE run_id = ? AND again = 1 LIMIT 1"
)
_FIRSTS_IN_RANGE: Final = (
    "SELECT item_key, id FROM items NOT INDEXED "
    "WHERE id BETWEEN ? AND ? AND run_id = ? AND again = 0"
)
_RESULTS_IN_RANGE: Final = "SELECT entry_id, word FROM results WHERE entry_id BETWEEN ? AND ?"
_RESULTS_OF: Final = (
    "SELECT o.entry_id, o.word FROM json_each(?) AS j JOIN results AS o ON o.entry_id = j.value"
)
#: Keys of a chunk looked up to find where its first attempts lie.
_PROBES: Final = 4


def _as_blob(keys: Sequence[str]) -> tuple[bytes, int] | None:
    """The keys as one blob and the bytes per key, when each is hex of one even length."""
    if not keys:
        return None
    width = len(keys[0])
    if width == 0 or width % 2 or len(set(map(len, keys))) != 1:
        return None
    joined = "".join(keys)
    try:
        blob = bytes.fromhex(joined)
    except ValueError:
        return None
    # fromhex also takes capitals and spaces: only text it gives back exactly.
    return (blob, width // 2) if blob.hex() == joined else None


Stored = str | bytes


def _lookup(
    conn: sqlite3.Connection, run_id: int, keys: list[Stored], again: int
) -> list[tuple[Stored, int]]:
    """Index lookups of ``keys``' first attempts (``again`` 0) or later ones (1)."""
    blobs = [k for k in keys if type(k) is bytes]
    texts = [k for k in keys if type(k) is str]
    found: list[tuple[Stored, int]] = []
    if blobs and len(set(map(len, blobs))) == 1:
        sql = _FIRSTS if again == 0 else _AGAINS
        found += conn.execute(sql, (b"".join(blobs), len(blobs[0]), len(blobs), run_id))
    elif blobs:  # hex keys of several lengths
        found += _lookup_in(conn, run_id, list[Stored](blobs), again)
    if texts:
        sql = _TEXT_FIRSTS if again == 0 else _TEXT_AGAINS
        found += conn.execute(sql, (json.dumps(texts), run_id))
    return found


def _lookup_in(
    conn: sqlite3.Connection, run_id: int, keys: list[Stored], again: int
) -> list[tuple[Stored, int]]:
    index = "items_by_key" if again == 0 else "items_again"
    found: list[tuple[Stored, int]] = []
    for start in range(0, len(keys), _KEYS_PER_QUERY):
        part = keys[start : start + _KEYS_PER_QUERY]
        marks = ", ".join("?" * len(part))
        found += conn.execute(
            f"SELECT item_key, id FROM items INDEXED BY {index} WHERE run_id = ? "
            f"AND item_key IN ({marks}) AND again = {again}",
            (run_id, *part),
        )
    return found


def _stored_attempts(
    conn: sqlite3.Connection, run_id: int, keys: list[Stored]
) -> list[tuple[Stored, int]]:
    """Every attempt of ``keys`` (stored forms).

    First attempts follow the input (a chunk's keys were journaled in that
    order), so a few are looked up to find the stretch of ids holding them,
    which is then walked once; any key not met there is looked up (exact
    whatever the order). Later attempts (a resume's) only by lookup, and
    only when the run has any.
    """
    found: list[tuple[Stored, int]] = []
    if len(keys) > 4 * _PROBES:
        ids = [i for _, i in _lookup(conn, run_id, keys[:_PROBES] + keys[-_PROBES:], 0)]
        if ids and max(ids) - min(ids) <= 4 * len(keys) + 64:
            wanted = set(keys)
            found = [
                (key, entry_id)
                for key, entry_id in conn.execute(_FIRSTS_IN_RANGE, (min(ids), max(ids), run_id))
                if key in wanted
            ]
    seen = {key for key, _ in found}
    rest = [key for key in keys if key not in seen] if seen else keys
    if rest:
        found += _lookup(conn, run_id, rest, 0)
    if conn.execute(_HAS_AGAIN, (run_id,)).fetchone() is not None:
        found += _lookup(conn, run_id, keys, 1)
    return found


def _attempts(conn: sqlite3.Connection, run_id: int, keys: Sequence[str]) -> list[tuple[str, int]]:
    """(key, entry id) of every attempt of ``keys`` in ``run_id``."""
    packed = _as_blob(keys)
    if packed is not None:  # hex digests: no per-key work in Python but the answer's
        blob, width = packed
        digests: list[Stored] = [blob[i : i + width] for i in range(0, len(blob), width)]
        found = _stored_attempts(conn, run_id, digests)
        return [(key.hex() if type(key) is bytes else str(key), i) for key, i in found]
    by_stored = {lookup_key(key): key for key in keys}
    return [
        (by_stored[key], entry_id)
        for key, entry_id in _stored_attempts(conn, run_id, list(by_stored))
    ]


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
    states = {
        i: ItemState(word in _SETTLED_WORDS, word, ()) for i, word in words.items()
    }  # one shared answer per outcome word
    outcome_of = _outcomes(conn, [entry_id for _, entry_id in attempts])
    if len({key for key, _ in attempts}) == len(attempts):
        # One attempt per key (the usual case): no merging.
        return {
            key: ItemState(False, None, (EntryId(entry_id),))
            if (word := outcome_of.get(entry_id)) is None
            else states[word]
            for key, entry_id in attempts
        }
    attempts.sort(key=lambda a: a[1])  # several attempts of a key: oldest first
    found: dict[str, ItemState] = {}
    for key, entry_id in attempts:
        word = outcome_of.get(entry_id)
        was = found.get(key)
        if was is None:
            found[key] = (
                ItemState(False, None, (EntryId(entry_id),)) if word is None else states[word]
            )
        elif word is None:
            found[key] = ItemState(
                was.settled, was.last_outcome, (*was.unfinished, EntryId(entry_id))
            )
        else:
            found[key] = ItemState(was.settled or states[word].settled, words[word], was.unfinished)
    return found


__all__ = ["item_states"]

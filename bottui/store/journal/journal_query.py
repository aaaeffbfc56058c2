"""The journal's reads: a page of entries along an index, and a bulk run's item lookups.

One page of journal entries, newest first, each filter walked along an index.

Which index leads depends on the filters (checked by
``tests/store/test_journal_plans.py`` with ``EXPLAIN QUERY PLAN``: no full
scan, no temporary B-tree):

* ``unfinished``: ``open_items`` (only the ids without an outcome; by run
  through ``open_by_run``);
* ``outcomes``: ``results_by_word``, one walk per word, merged here by id;
* project, operation, profile, account, operator or run: that segment
  index, then the segment's id range of ``items``; with outcomes too,
  whichever side holds fewer entries leads (:func:`outcomes_are_fewer`, two
  bounded counts);
* reason (a case-insensitive substring): the matching texts are found in
  the ``reasons`` dictionary (each text once, so far fewer rows than
  entries), then, alone, ``segments_by_reason`` is walked once per matching
  text and merged by id; with other filters it is checked on their rows;
* only ``since``/``until``: ``segments_by_time`` (``hw`` never decreases with
  the id, so walking it backwards is newest first), plus the few segments
  started before an earlier one (``segments_late``), merged by id;
* nothing: ``items`` by id.

Every other filter is checked on the rows the leading index gives; a page
stops at ``limit`` rows.

What a bulk run's journal knows of its item keys: the lookups of ``--resume``.

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

import heapq
import json
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, Final

import msgspec

from bottui.store.journal.journal_records import (
    SETTLED_OUTCOMES,
    EntryId,
    EntryQuery,
    ItemState,
    JournalEntry,
    RunId,
    RunRest,
)
from bottui.store.journal.journal_rows import entry, lookup_key, micros
from bottui.store.journal.journal_schema import COLUMNS, OUTCOME_JOINS, SEGMENT_OF

_SEGMENT: Final = f" JOIN segments AS s ON s.first_id = {SEGMENT_OF}"
_BY_SEGMENT: Final = (
    f"SELECT {COLUMNS} FROM segments AS s "
    "JOIN items AS e ON e.id BETWEEN s.first_id AND s.last_id" + OUTCOME_JOINS
)


#: Matching reason texts walked one index stream each; more are checked row by row.
MAX_REASON_STREAMS: Final = 32
#: A segment's reason is one of a JSON array of ids (the unary ``+`` keeps
#: SQLite from leading with it: a list of index walks would need a sort).
_REASON_IN: Final = "+s.reason IN (SELECT value FROM json_each(?))"
#: Segments of none of these runs (``skip_runs``): checked on the segments the
#: other filters give, or walked newest first along the segments' key.
_NOT_IN_RUNS: Final = "(s.run_id IS NULL OR +s.run_id NOT IN (SELECT value FROM json_each(?)))"


def _segment_filters(
    query: EntryQuery, reason_ids: Sequence[int] | None = None
) -> tuple[list[str], list[object]]:
    where: list[str] = []
    params: list[object] = []
    for column, value in (
        ("s.profile", query.profile),
        ("s.account", query.account),
        ("s.project", query.project),
        ("s.operation", query.operation),
        ("s.operator", query.operator),
        ("s.run_id", None if query.run_id is None else int(query.run_id)),
    ):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if query.reason is not None:
        where.append(_REASON_IN)
        params.append(json.dumps(sorted(reason_ids or ())))
    if query.skip_runs:
        where.append(_NOT_IN_RUNS)
        params.append(json.dumps(sorted(int(run) for run in query.skip_runs)))
    return where, params


def reason_ids(conn: sqlite3.Connection, needle: str) -> list[int]:
    """Ids of the reasons holding ``needle``, case-insensitively (Unicode case folding)."""
    wanted = needle.casefold()
    return [
        int(row[0])
        for row in conn.execute("SELECT id, reason FROM reasons")
        if wanted in str(row[1]).casefold()
    ]


def _us(moment: datetime | None) -> int | None:
    return None if moment is None else micros(moment)


def plans(
    query: EntryQuery,
    before: int | None,
    limit: int,
    *,
    outcomes_lead: bool = True,
    reasons: Sequence[int] | None = None,
) -> list[tuple[str, list[object]]]:
    """The SELECTs whose rows, merged by id (newest first), are the page.

    With both segment filters and ``outcomes``, ``outcomes_lead`` says which
    index leads (:func:`outcomes_are_fewer` guesses which walks fewer rows).
    ``reasons`` are the ids of the reasons matching ``query.reason``
    (:func:`reason_ids`); none means no entry matches.
    """
    if query.before is not None:
        before = int(query.before) if before is None else min(before, int(query.before))
    if query.reason is not None and not reasons:
        return []
    seg_where, seg_params = _segment_filters(query, reasons)
    if (
        query.reason is not None
        and reasons
        and len(seg_where) == 1
        and query.outcomes is None
        and not query.unfinished
        and query.since is None
        and query.until is None
        and len(reasons) <= MAX_REASON_STREAMS
    ):
        # The reason alone: one walk of its index per matching text.
        order = "s.first_id DESC, e.id DESC"
        return [_segments(["s.reason = ?"], [reason], order, before, limit) for reason in reasons]
    since, until = _us(query.since), _us(query.until)
    where, params = list(seg_where), list(seg_params)
    for bound, moment in (("s.started >= ?", since), ("s.started < ?", until)):
        if moment is not None:
            where.append(bound)
            params.append(moment)
    if query.unfinished:
        if query.outcomes is not None:
            return []  # an entry without an outcome has none of these outcomes
        lead = "u.entry_id"
        sql = f"SELECT {COLUMNS} FROM open_items AS u JOIN items AS e ON e.id = u.entry_id"
        sql += _SEGMENT + OUTCOME_JOINS
        if query.run_id is not None:
            where = ["u.run_id = ?", *where]
            params = [int(query.run_id), *params]
        return [_finish(sql, where, params, lead, before, limit)]
    if query.outcomes is not None and seg_where and not outcomes_lead:
        words = sorted(query.outcomes)
        marks = ", ".join("?" * len(words))
        # Segments holding none of the words are skipped whole.
        holds = (
            "EXISTS (SELECT 1 FROM segment_words AS sw JOIN words AS sww ON sww.id = sw.word "
            f"WHERE sw.first_id = s.first_id AND sww.word IN ({marks}))"
        )
        return [
            _segments(
                [*where, holds, f"w.word IN ({marks})"],
                [*params, *words, *words],
                "s.first_id DESC, e.id DESC",
                before,
                limit,
            )
        ]
    if query.outcomes is not None:
        sql = f"SELECT {COLUMNS} FROM results AS o JOIN items AS e ON e.id = o.entry_id"
        sql += (
            _SEGMENT + " JOIN words AS w ON w.id = o.word LEFT JOIN shapes AS k ON k.id = o.shape"
        )
        return [
            _finish(sql, ["w.word = ?", *where], [word, *params], "o.entry_id", before, limit)
            for word in sorted(query.outcomes)
        ]
    if seg_where:
        order = "s.first_id DESC, e.id DESC"
        return [_segments(where, params, order, before, limit)]
    if since is not None or until is not None:
        # hw never decreases with the id: walking it backwards is newest first.
        order = "s.hw DESC, s.first_id DESC, e.id DESC"
        main_where, main_params = list(where), list(params)
        if since is not None:
            main_where.append("s.hw >= ?")
            main_params.append(since)
        if until is not None:
            main_where.append("s.hw < ?")
            main_params.append(until)
        found = [_segments(main_where, main_params, order, before, limit)]
        if until is not None:
            # Started before until, after a segment that started later (clock skew).
            late = [*where, "s.started < s.hw", "s.hw >= ?"]
            found.append(
                _segments(late, [*params, until], order, before, limit, " INDEXED BY segments_late")
            )
        return found
    sql = f"SELECT {COLUMNS} FROM items AS e" + _SEGMENT + OUTCOME_JOINS
    return [_finish(sql, [], [], "e.id", before, limit)]


def _segments(
    where: list[str],
    params: list[object],
    order: str,
    before: int | None,
    limit: int,
    index: str = "",
) -> tuple[str, list[object]]:
    where, params = list(where), list(params)
    if before is not None:
        where += ["s.first_id < ?", "e.id < ?"]
        params += [before, before]
    sql = _BY_SEGMENT.replace("segments AS s", f"segments AS s{index}", 1)
    sql += " WHERE " + " AND ".join(where) if where else ""
    return f"{sql} ORDER BY {order} LIMIT ?", [*params, limit]


def _finish(
    sql: str, where: list[str], params: list[object], lead: str, before: int | None, limit: int
) -> tuple[str, list[object]]:
    where, params = list(where), list(params)
    if before is not None:
        where.append(f"{lead} < ?")
        params.append(before)
    if where:
        sql += " WHERE " + " AND ".join(where)
    return f"{sql} ORDER BY {lead} DESC LIMIT ?", [*params, limit]


def _selects(
    conn: sqlite3.Connection, query: EntryQuery, before: int | None, size: int
) -> list[tuple[str, list[object]]]:
    reasons = None if query.reason is None else reason_ids(conn, query.reason)
    lead = True
    if query.outcomes and not query.unfinished and _segment_filters(query, reasons)[0]:
        lead = outcomes_are_fewer(conn, query, reasons)
    return plans(query, before, size, outcomes_lead=lead, reasons=reasons)


def read_page(
    conn: sqlite3.Connection, query: EntryQuery, before: int | None, limit: int | None
) -> list[JournalEntry]:
    """Up to ``limit`` entries (``None``: all) matching ``query``, newest first."""
    size = -1 if limit is None else max(0, int(limit))
    if size == 0:
        return []
    return [entry(row) for row in _rows(conn, _selects(conn, query, before, size), size)]


#: What :func:`run_rest` reads of each entry instead of the whole row.
_REST_COLUMNS: Final = (
    "w.word AS word, (SELECT r.reason FROM reasons AS r WHERE r.id = s.reason) AS reason"
)


def run_rest(conn: sqlite3.Connection, query: EntryQuery, run_id: int, before: int) -> RunRest:
    """The entries of ``query`` in run ``run_id`` older than ``before``, counted in SQL.

    The Journal screen shows a run as one row: to show what is older than a
    run of a million ids it counts the run's rest here (the run's segments,
    along ``segments_by_run``), then reads on without it (``skip_runs``).
    """
    wanted = msgspec.structs.replace(query, run_id=RunId(run_id), skip_runs=frozenset())
    outcomes: dict[str | None, int] = {}
    reasons: set[str] = set()
    for sql, params in _selects(conn, wanted, before, -1):
        counted = (
            f"SELECT word, reason, count(*) FROM "
            f"({sql.replace(f'SELECT {COLUMNS} FROM', f'SELECT {_REST_COLUMNS} FROM', 1)}) "
            "GROUP BY word, reason"
        )
        for word, reason, count in conn.execute(counted, params):
            outcomes[word] = outcomes.get(word, 0) + int(count)
            if reason:
                reasons.add(str(reason))
    return RunRest(outcomes, frozenset(reasons))


#: Rows counted at most when guessing which index of a combined filter leads.
_PROBE: Final = 50_000


def outcomes_are_fewer(
    conn: sqlite3.Connection, query: EntryQuery, reasons: Sequence[int] | None = None
) -> bool:
    """Whether the outcome words hold fewer entries than the segment filters
    (each counted along its own index, at most :data:`_PROBE`): the smaller
    side leads, the other is checked row by row."""
    where, params = _segment_filters(query, reasons)
    in_segments = conn.execute(
        "SELECT coalesce(sum(n), 0) FROM (SELECT s.last_id - s.first_id + 1 AS n "
        f"FROM segments AS s WHERE {' AND '.join(where)} LIMIT ?)",
        [*params, _PROBE],
    ).fetchone()[0]
    with_words = 0
    for word in sorted(query.outcomes or ()):
        if with_words >= _PROBE:
            break
        with_words += conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM words AS w JOIN results AS o ON o.word = w.id "
            "WHERE w.word = ? LIMIT ?)",
            (word, _PROBE),
        ).fetchone()[0]
    # A tie (both past the probe) goes to the segments: a project filter is
    # most often the current project, dense in what it is asked about.
    return bool(with_words < min(in_segments, _PROBE))


def _rows(
    conn: sqlite3.Connection, selects: list[tuple[str, list[object]]], limit: int
) -> Iterator[tuple[Any, ...]]:
    if len(selects) == 1:
        sql, params = selects[0]
        yield from conn.execute(sql, params)
        return
    streams = [conn.execute(sql, params) for sql, params in selects]
    merged = heapq.merge(*streams, key=lambda row: -int(row[0]))
    for count, row in enumerate(merged):
        if count == limit:
            return
        yield row


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

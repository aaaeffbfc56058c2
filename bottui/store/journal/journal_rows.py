"""The row codec: journal records to compact v2 rows and back, exactly.

The value codec (times, item keys, bodies, results) and the one row writer
used by every write and by the migration, with the SQL that appends the rows.

How journal values are packed into the compact v2 rows, and unpacked exactly.

The v2 schema (:mod:`bottui.store.journal.journal_schema`) keeps per id only what
differs from id to id; everything here is lossless, so a
:class:`~bottui.store.journal.journal_records.JournalEntry` read back equals the one a
v1 file gave:

* times: integer microseconds since the epoch (UTC); a stored text that the
  integer would not give back exactly (only possible in a migrated file) is
  kept next to it and wins;
* item keys: lowercase hex of even length as the bytes it spells (half the
  size, turned back into the same text), anything else as text;
* request bodies that are ``prefix + target + suffix`` (a bulk id's
  ``{"subject": {...}}``): the prefix and suffix once per segment, nothing per id;
* result objects: their key list once (table ``shapes``), per id the JSON
  array of their values.

Journal records to v2 rows and back: one writer used by every write and by the migration.

:func:`write` appends started records and outcomes inside the caller's
write transaction: consecutive started records with the same shared fields
become one ``segments`` row, each id one small ``items`` row, each outcome
one ``results`` row (outcome words and result key lists through their
dictionaries). :func:`entry` turns a row of
:data:`~bottui.store.journal.journal_schema.COLUMNS` back into the exact
:class:`~bottui.store.journal.journal_records.JournalEntry` of version 1.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Final, NamedTuple, cast

from bottui.api.tokens import is_secret_key
from bottui.store.journal.journal_records import (
    JournalEntry,
    StartRecord,
    duration,
    json_object,
    object_json,
    optional_int,
    outcome_word,
    reason_or_none,
)
from bottui.store.redact import JsonValue, redacted_json
from bottui.store.utc import stamp

#: The segment writer of version 2 and 3 files (the v2 migration writes through it).
INSERT_SEGMENT_V2: Final = (
    "INSERT INTO segments (first_id, last_id, started, hw, started_text, operator, pid, "
    "profile, base_url, operation, account, project, run_id, body_prefix, body_suffix, "
    "target_prefix, target_suffix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_SEGMENT: Final = (
    "INSERT INTO segments (first_id, last_id, started, hw, started_text, operator, pid, "
    "profile, base_url, operation, account, project, run_id, body_prefix, body_suffix, "
    "target_prefix, target_suffix, host, reason) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
#: ``again`` is 1 when the run already has an attempt of this key.
INSERT_ITEM: Final = (
    "INSERT INTO items (id, target, body, previous, undo_of, run_id, item_key, again) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?6 IS NOT NULL AND EXISTS (SELECT 1 FROM items "
    "INDEXED BY items_by_key WHERE run_id = ?6 AND item_key = ?7 AND again = 0))"
)
INSERT_RESULT: Final = (
    "INSERT INTO results (entry_id, finished, word, status, result, shape, error, "
    "duration_ms, finished_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
#: The newest segment's high-water start time (0 when there is none).
LAST_HW: Final = "SELECT coalesce((SELECT hw FROM segments ORDER BY first_id DESC LIMIT 1), 0)"

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_US: Final = timedelta(microseconds=1)
_STAMP: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def micros(moment: datetime) -> int:
    """``moment`` as integer microseconds since the epoch (naive: UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _ONE_US


def from_micros(us: int) -> datetime:
    """The UTC moment ``us`` microseconds after the epoch (what :func:`micros` made)."""
    return _EPOCH + timedelta(microseconds=us)


def time_text(us: int, text: str | None = None) -> str:
    """The stored shape of a time (``text`` when the row kept one)."""
    if text is not None:
        return text
    return stamp(_EPOCH + timedelta(microseconds=us))


def pack_time(text: str) -> tuple[int, str | None]:
    """A stored time text as (microseconds, text kept only if not given back exactly)."""
    if _STAMP.fullmatch(text):
        try:
            # The stored shape, a valid date: time_text gives it back exactly.
            return micros(datetime.fromisoformat(text)), None
        except ValueError:
            return 0, text
    try:
        return micros(datetime.fromisoformat(text.strip())), text
    except ValueError:
        return 0, text


def pack_key(key: str | None) -> str | bytes | None:
    """The stored form of an item key (see the module docstring)."""
    return None if key is None else lookup_key(key)


def lookup_key(key: str) -> str | bytes:
    """The stored form of an explicit or default key, for ``item_states``."""
    if len(key) % 2 or not key:
        return key
    try:
        data = bytes.fromhex(key)
    except ValueError:
        return key
    # fromhex also takes capitals and spaces: only text it gives back exactly.
    return data if data.hex() == key else key


def unpack_key(stored: str | bytes | None) -> str | None:
    """The item key text back from its stored form."""
    if isinstance(stored, bytes):
        return stored.hex()
    return stored


def split_body(body: str | None, target: str) -> tuple[str | None, str | None, str | None]:
    """(prefix, suffix, literal body): the body as ``prefix + target + suffix`` when it is."""
    if body is None:
        return None, None, None
    at = body.find(target)
    if at < 0:
        return None, None, body
    return body[:at], body[at + len(target) :], None


def join_body(
    literal: str | None, prefix: str | None, suffix: str | None, target: str
) -> str | None:
    """The request body text back (inverse of :func:`split_body`)."""
    if prefix is None or literal is not None:
        return literal
    return f"{prefix}{target}{suffix or ''}"


def pack_result(result: Mapping[str, Any] | None) -> tuple[str | None, tuple[str, ...] | None]:
    """(text, keys): a plain object's values as a JSON array and its key list, or
    the redacted JSON text and None (``None``, a secret key at the top, odd keys)."""
    if result is None:
        return None, None
    if type(result) is dict:
        keys = tuple(result)
        if _plain(keys):
            # No top-level secret key: redacting the values is redacting the object.
            return redacted_json(list(result.values())), keys
    return redacted_json(result), None


@lru_cache(maxsize=256)
def _plain(keys: tuple[object, ...]) -> bool:
    """True when every key is a string and none names a secret (cached: a run's
    results share one key list)."""
    return all(type(k) is str and not is_secret_key(k) for k in keys)


@lru_cache(maxsize=256)
def _keys(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


def unpack_result(text: str | None, keys: str | None) -> str | dict[str, Any] | None:
    """The result back: text (parsed by the caller) or the object rebuilt."""
    if text is None or keys is None:
        return text
    try:
        return dict(zip(_keys(keys), json.loads(text), strict=True))
    except (ValueError, TypeError, RecursionError):
        return text  # a damaged row: its text, as the other JSON columns keep theirs


def keys_text(keys: tuple[str, ...]) -> str:
    """A result key list as stored in ``shapes``."""
    text = redacted_json(list(keys))
    assert text is not None
    return text


class Start(NamedTuple):
    """A started record ready to write: its time and a version-1 ``entries`` row."""

    started: int
    started_text: str | None
    #: (started_at, operator, pid, profile, base_url, operation, account,
    #: project, target, body, previous, undo_of, run_id, item_key), as
    #: :meth:`StartRecord.row <bottui.store.journal.journal_records.StartRecord.row>` gives.
    row: tuple[Any, ...]
    #: The machine that wrote it (version 4; None in older entries).
    host: str | None = None
    #: Why, as the operator gave it (version 4; None: no reason given).
    reason: str | None = None


def start_row(
    record: StartRecord, started: int, started_at: str, operator: str, pid: int, host: str
) -> Start:
    """A started record ready to write (``operator``: the journal's, unless the record
    names one)."""
    row = record.row(started_at, operator, pid)
    return Start(started, None, row, host, reason_or_none(record.reason))


class Finish(NamedTuple):
    """An outcome ready to write (``result`` packed: values array + key list, or text)."""

    entry_id: int
    finished: int
    finished_text: str | None
    word: str
    status: int | None
    result: str | None
    keys: tuple[str, ...] | None
    error: str | None
    duration_ms: float | None


def finish_of(
    entry_id: int,
    finished: int,
    *,
    outcome: str,
    status: int | None = None,
    result: Mapping[str, Any] | None = None,
    error: Mapping[str, Any] | None = None,
    duration_ms: float | None = None,
) -> Finish:
    """Check and redact an outcome and pack it (``result``: values array and key list)."""
    word = outcome_word(outcome)
    code = optional_int("status", status)
    error_text = object_json("error", error)
    took = duration(duration_ms)
    json_object("result", result)
    text, keys = pack_result(result)
    return Finish(entry_id, finished, None, word, code, text, keys, error_text, took)


#: The dictionaries of the journal: table -> the column holding each value once.
_DICTIONARIES: Final = {"words": "word", "shapes": "keys", "reasons": "reason"}


class Dictionaries:
    """Ids of outcome words, result key lists and reasons, cached per connection.

    A value added inside a transaction that is rolled back must not stay
    cached: every write transaction runs inside :meth:`kept`.
    """

    def __init__(self) -> None:
        self._ids: dict[str, dict[Any, int]] = {table: {} for table in _DICTIONARIES}
        self._new: list[tuple[str, Any]] = []
        self._depth = 0
        self._conn: sqlite3.Connection | None = None

    def _id(self, conn: sqlite3.Connection, table: str, value: Any) -> int:
        """The id of ``value`` in ``table`` (added if new)."""
        # A new connection may be a new file (the old one moved aside): ask again.
        if conn is not self._conn:
            for ids in self._ids.values():
                ids.clear()
            self._conn = conn
        found = self._ids[table].get(value)
        if found is None:
            column = _DICTIONARIES[table]
            text = keys_text(value) if table == "shapes" else value
            conn.execute(f"INSERT OR IGNORE INTO {table} ({column}) VALUES (?)", (text,))
            row = conn.execute(f"SELECT id FROM {table} WHERE {column} = ?", (text,)).fetchone()
            found = self._ids[table][value] = int(row[0])
            self._new.append((table, value))
        return found

    def word(self, conn: sqlite3.Connection, word: str) -> int:
        """The id of an outcome word (added if new)."""
        return self._id(conn, "words", word)

    def shape(self, conn: sqlite3.Connection, keys: tuple[str, ...]) -> int:
        """The id of a result key list (added if new)."""
        return self._id(conn, "shapes", keys)

    def reason(self, conn: sqlite3.Connection, reason: str) -> int:
        """The id of a reason text (added if new): each text is stored once."""
        return self._id(conn, "reasons", reason)

    @contextmanager
    def kept(self) -> Iterator[None]:
        """Around a write transaction, or a savepoint inside one: what the block added
        is dropped when it raises (rolled back), and stays cached once the outermost
        block ends normally (committed)."""
        mark = len(self._new)
        self._depth += 1
        try:
            yield
        except BaseException:
            for table, value in self._new[mark:]:
                self._ids[table].pop(value, None)
            del self._new[mark:]
            raise
        finally:
            self._depth -= 1
        if self._depth == 0:
            self._new.clear()


def write(
    conn: sqlite3.Connection,
    first_id: int,
    starts: Sequence[Start],
    finishes: Sequence[Finish],
    names: Dictionaries,
    *,
    version: int = 4,
) -> None:
    """Append ``starts`` (ids ``first_id`` on, in order) and ``finishes``.

    The caller holds the write lock, knows ``first_id`` is the next id, and
    commits; an outcome's ``entry_id`` may name one of ``starts``.
    ``version`` below 4 writes segments without host and reason (what the
    migration to version 2 needs: those columns come later).
    """
    if starts:
        hw = int(conn.execute(LAST_HW).fetchone()[0])
        segments: list[tuple[object, ...]] = []
        items: list[tuple[object, ...]] = []
        entry_id = first_id
        for fields, group in _groups(starts):
            targets = [row[8] for row, _ in group]
            head, tail = affixes(targets)
            cut_end = len(tail or "")
            hw = max(hw, cast(int, fields[0]))  # the segment's start time (µs)
            segment = (
                entry_id,
                entry_id + len(group) - 1,
                fields[0],
                hw,
                *fields[1:-2],
                head,
                tail,
            )
            if version >= 4:
                host, reason = fields[-2:]
                reason_id = None if reason is None else names.reason(conn, str(reason))
                segment = (*segment, host, reason_id)
            segments.append(segment)
            cut_start = len(head or "")
            for row, literal in group:
                target = row[8]
                middle = target[cut_start : len(target) - cut_end]
                items.append(
                    (entry_id, middle, literal, row[10], row[11], row[12], pack_key(row[13]))
                )
                entry_id += 1
        conn.executemany(INSERT_SEGMENT if version >= 4 else INSERT_SEGMENT_V2, segments)
        conn.executemany(INSERT_ITEM, items)
    if finishes:
        conn.executemany(INSERT_RESULT, [_result(conn, f, names) for f in finishes])


def _groups(
    starts: Sequence[Start],
) -> list[tuple[tuple[object, ...], list[tuple[tuple[Any, ...], str | None]]]]:
    """Consecutive started records sharing every field but the per-id ones
    (each row with its body when it is not the segment's template)."""
    groups: list[tuple[tuple[object, ...], list[tuple[tuple[Any, ...], str | None]]]] = []
    shared: tuple[object, ...] | None = None
    for start in starts:
        row = start.row
        prefix, suffix, literal = split_body(row[9], row[8])
        # started, its text, operator, pid, profile, base_url, operation,
        # account, project, run_id, body prefix and suffix, host and reason.
        fields = (
            start.started,
            start.started_text,
            *row[1:8],
            row[12],
            prefix,
            suffix,
            start.host,
            start.reason,
        )
        if fields != shared:
            groups.append((fields, []))
            shared = fields
        groups[-1][1].append((row, literal))
    return groups


def affixes(targets: list[str]) -> tuple[str | None, str | None]:
    """The text every target of a segment starts and ends with (stored once);
    None for a segment of one (its target stays whole in its item)."""
    if len(targets) < 2:
        return None, None
    head = os.path.commonprefix(targets)  # noqa: RUF071 (text, not paths)
    shortest = min(len(t) for t in targets)
    reversed_tail = os.path.commonprefix([t[::-1] for t in targets])  # noqa: RUF071
    tail = reversed_tail[: shortest - len(head)][::-1]
    return (head or None), (tail or None)


def _result(conn: sqlite3.Connection, f: Finish, names: Dictionaries) -> tuple[object, ...]:
    shape = None if f.keys is None else names.shape(conn, f.keys)
    return (
        f.entry_id,
        f.finished,
        names.word(conn, f.word),
        f.status,
        f.result,
        shape,
        f.error,
        f.duration_ms,
        f.finished_text,
    )


def _load(value: str | None) -> JsonValue:
    if value is None:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return value  # never lose what is there, even if it no longer parses


def entry(row: Sequence[Any]) -> JournalEntry:
    """A row of :data:`~bottui.store.journal.journal_schema.COLUMNS` as a :class:`JournalEntry`."""
    (
        entry_id,
        started,
        started_text,
        operator,
        pid,
        profile,
        base_url,
        operation,
        account,
        project,
        middle,
        head,
        tail,
        body,
        prefix,
        suffix,
        previous,
        undo_of,
        run_id,
        key,
        finished,
        finished_text,
        word,
        status,
        result,
        keys,
        error,
        duration_ms,
        host,
        reason,
        origin,
    ) = row
    result_value = unpack_result(result, keys)
    target = f"{head or ''}{middle}{tail or ''}"
    return JournalEntry(
        id=entry_id,
        started_at=time_text(started, started_text),
        operator=operator,
        pid=pid,
        profile=profile,
        base_url=base_url,
        operation=operation,
        account=account,
        project=project,
        target=_load(target),
        request_body=_load(join_body(body, prefix, suffix, target)),
        previous=_load(previous),
        undo_of=undo_of,
        run_id=run_id,
        item_key=unpack_key(key),
        finished_at=None if word is None else time_text(finished, finished_text),
        outcome=word,
        status=status,
        result=_load(result_value) if not isinstance(result_value, dict) else result_value,
        error=_load(error),
        duration_ms=duration_ms,
        host=host,
        reason=reason,
        origin=origin,
    )

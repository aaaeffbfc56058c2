"""Journal records to v2 rows and back: one writer used by every write and by the migration.

:func:`write` appends started records and outcomes inside the caller's
write transaction: consecutive started records with the same shared fields
become one ``segments`` row, each id one small ``items`` row, each outcome
one ``results`` row (outcome words and result key lists through their
dictionaries). :func:`entry` turns a row of
:data:`~bottui.store.journal_schema.COLUMNS` back into the exact
:class:`~bottui.store.journal_records.JournalEntry` of version 1.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, cast

from bottui.api.tokens import Secret
from bottui.store.journal_codec import (
    join_body,
    keys_text,
    pack_key,
    pack_result,
    split_body,
    time_text,
    unpack_key,
    unpack_result,
)
from bottui.store.journal_records import JournalEntry, StartRecord, outcome_row
from bottui.store.journal_schema import (
    INSERT_ITEM,
    INSERT_RESULT,
    INSERT_SEGMENT,
    INSERT_SEGMENT_V2,
    LAST_HW,
)
from bottui.store.redact import JsonValue


class Start(NamedTuple):
    """A started record ready to write: its time and a version-1 ``entries`` row."""

    started: int
    started_text: str | None
    #: (started_at, operator, pid, profile, base_url, operation, account,
    #: project, target, body, previous, undo_of, run_id, item_key), as
    #: :meth:`StartRecord.row <bottui.store.journal_records.StartRecord.row>` gives.
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
    return Start(started, None, record.row(started_at, operator, pid), host, record.reason_text())


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
    """Check and redact an outcome (as ``outcome_row`` does) and pack it."""
    row = outcome_row(
        entry_id,
        "",
        outcome=outcome,
        status=status,
        result=None,
        error=error,
        duration_ms=duration_ms,
    )
    if result is not None and not isinstance(result, dict | Mapping):
        if isinstance(result, Secret):
            raise TypeError("a token must never be journaled or stored")
        raise TypeError(f"result must be a JSON object, not {type(result).__name__}")
    text, keys = pack_result(result)
    word, code, _, error_text, duration = row[2:]
    return Finish(
        entry_id,
        finished,
        None,
        cast(str, word),
        cast(int | None, code),
        text,
        keys,
        cast(str | None, error_text),
        cast(float | None, duration),
    )


class Dictionaries:
    """Ids of outcome words and result key lists, cached per connection.

    A value added inside a transaction that is rolled back must not stay
    cached: :meth:`commit`/:meth:`forget` after the transaction.
    """

    def __init__(self) -> None:
        self._words: dict[str, int] = {}
        self._shapes: dict[tuple[str, ...], int] = {}
        self._reasons: dict[str, int] = {}
        self._new_words: list[str] = []
        self._new_shapes: list[tuple[str, ...]] = []
        self._new_reasons: list[str] = []
        self._conn: sqlite3.Connection | None = None

    def _check(self, conn: sqlite3.Connection) -> None:
        # A new connection may be a new file (the old one moved aside): ask again.
        if conn is not self._conn:
            self._words.clear()
            self._shapes.clear()
            self._reasons.clear()
            self._conn = conn

    def word(self, conn: sqlite3.Connection, word: str) -> int:
        """The id of an outcome word (added if new)."""
        self._check(conn)
        found = self._words.get(word)
        if found is None:
            conn.execute("INSERT OR IGNORE INTO words (word) VALUES (?)", (word,))
            found = int(conn.execute("SELECT id FROM words WHERE word = ?", (word,)).fetchone()[0])
            self._words[word] = found
            self._new_words.append(word)
        return found

    def shape(self, conn: sqlite3.Connection, keys: tuple[str, ...]) -> int:
        """The id of a result key list (added if new)."""
        self._check(conn)
        found = self._shapes.get(keys)
        if found is None:
            text = keys_text(keys)
            conn.execute("INSERT OR IGNORE INTO shapes (keys) VALUES (?)", (text,))
            found = int(conn.execute("SELECT id FROM shapes WHERE keys = ?", (text,)).fetchone()[0])
            self._shapes[keys] = found
            self._new_shapes.append(keys)
        return found

    def reason(self, conn: sqlite3.Connection, reason: str) -> int:
        """The id of a reason text (added if new): each text is stored once."""
        self._check(conn)
        found = self._reasons.get(reason)
        if found is None:
            conn.execute("INSERT OR IGNORE INTO reasons (reason) VALUES (?)", (reason,))
            row = conn.execute("SELECT id FROM reasons WHERE reason = ?", (reason,)).fetchone()
            found = int(row[0])
            self._reasons[reason] = found
            self._new_reasons.append(reason)
        return found

    def commit(self) -> None:
        """The transaction committed: what it added stays cached."""
        self._new_words.clear()
        self._new_shapes.clear()
        self._new_reasons.clear()

    def forget(self) -> None:
        """The transaction rolled back: drop what it added."""
        for word in self._new_words:
            self._words.pop(word, None)
        for keys in self._new_shapes:
            self._shapes.pop(keys, None)
        for reason in self._new_reasons:
            self._reasons.pop(reason, None)
        self.commit()


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
            hw = max(hw, start_of(fields))
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


def start_of(fields: tuple[object, ...]) -> int:
    """The start time (microseconds) of a segment's shared fields."""
    started = fields[0]
    assert isinstance(started, int)
    return started


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
    """A row of :data:`~bottui.store.journal_schema.COLUMNS` as a :class:`JournalEntry`."""
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


__all__ = ["Dictionaries", "Finish", "Start", "entry", "finish_of", "start_row", "write"]

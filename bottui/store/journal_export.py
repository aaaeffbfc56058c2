"""Journal entries to JSON Lines and CSV files.

JSONL: one :meth:`JournalEntry.to_json <bottui.store.journal_records.JournalEntry.to_json>`
object per line. CSV: the same fields as columns (:data:`FIELDS`), nested
objects as compact JSON text, empty cells for nulls. A CSV cell whose text
starts with ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a leading
``'`` so a spreadsheet shows it instead of running it as a formula (server
messages and ids are untrusted). Both are written atomically.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

from bottui.store.atomic_file import write_atomic
from bottui.store.journal_records import FIELDS, JournalEntry

_FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")


def export_jsonl(path: Path, entries: Iterable[JournalEntry]) -> int:
    """Write ``entries`` as JSON Lines; returns how many were written."""
    count = 0

    def lines() -> Iterator[str]:
        nonlocal count
        for entry in entries:
            count += 1
            yield json.dumps(entry.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"

    write_atomic(Path(path), lines())
    return count


def csv_cell(value: object) -> str | int | float:
    """One CSV cell: numbers as numbers, objects as JSON, formula starts defused."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return value
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    )
    return "'" + text if text.startswith(_FORMULA_START) else text


def export_csv(path: Path, entries: Iterable[JournalEntry]) -> int:
    """Write ``entries`` as CSV with a header row; returns how many were written."""
    count = 0

    def rows() -> Iterator[str]:
        nonlocal count
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerow(FIELDS)
        for entry in entries:
            count += 1
            record = entry.to_json()
            writer.writerow([csv_cell(record[name]) for name in FIELDS])
            if buffer.tell() > 65536:
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()
        yield buffer.getvalue()

    write_atomic(Path(path), rows(), newline="")
    return count


__all__ = ["csv_cell", "export_csv", "export_jsonl"]

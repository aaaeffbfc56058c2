"""Journal entries to JSON Lines and CSV files.

JSONL: one :meth:`JournalEntry.to_json <bottui.store.journal.records.JournalEntry.to_json>`
object per line. CSV: the same fields as columns (:data:`FIELDS`), nested
objects as compact JSON text, empty cells for nulls. Every cell passes
:func:`bottui.store.safe_export.cell`: no control characters, and a cell starting with
``=``, ``+``, ``-`` or ``@`` gets a leading ``'`` so a spreadsheet shows it
instead of running it as a formula (server messages and ids are untrusted).
JSONL goes through :mod:`bottui.store.safe_export` (C1 and bidi controls escaped).
Both are written atomically.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from pathlib import Path

from bottui.store import safe_export
from bottui.store.files import write_atomic
from bottui.store.journal.records import FIELDS, JournalEntry


def export_jsonl(path: Path, entries: Iterable[JournalEntry], *, overwrite: bool = False) -> int:
    """Write ``entries`` as JSON Lines; returns how many were written.

    A file for a person (:mod:`bottui.store.files`): an existing
    ``path`` is replaced only with ``overwrite``, a symlink never.
    """
    count = 0

    def lines() -> Iterator[str]:
        nonlocal count
        for entry in entries:
            count += 1
            yield safe_export.dumps(entry.to_json(), separators=(",", ":")) + "\n"

    write_atomic(Path(path), lines(), overwrite=overwrite)
    return count


def csv_cell(value: object) -> str | int | float:
    """One CSV cell: numbers as numbers, objects as JSON, formula starts defused."""
    return safe_export.cell(value)


def export_csv(path: Path, entries: Iterable[JournalEntry], *, overwrite: bool = False) -> int:
    """Write ``entries`` as CSV with a header row; returns how many were written.

    As :func:`export_jsonl`: ``overwrite`` to replace a file, never a symlink.
    """
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

    write_atomic(Path(path), rows(), overwrite=overwrite, newline="")
    return count


__all__ = [
    "csv_cell",
    "export_csv",
    "export_jsonl",
]

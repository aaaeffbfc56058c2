"""``--output``: one row per id of a bulk run, written as the results come in.

The format follows the file name: ``.csv`` (a header, then one row per id)
or ``.jsonl`` (one JSON object per line). Rows hold the id(s) and line
number, the outcome in the words of :class:`~bottui.ops.bulk.ItemStatus`,
the ``reportId``, the HTTP status and, for a failure, the error in one line.
The file is opened before anything is sent, so a path that cannot be
written is refused (exit 2) with nothing sent. It is a file for a person
(:mod:`bottui.store.files`): a symlink is refused, an existing file is
replaced only with ``overwrite`` (``--overwrite``), and the rows go to a
temporary file next to it that takes its place when the run ends.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, Final

from bottui.api.errors import RefusedError
from bottui.ops.bulk.status import ItemResult
from bottui.store import safe_export
from bottui.store.errors import StoreFileError
from bottui.store.files import AtomicText

COLUMNS: Final = ("line", "visitorId", "userAccountId", "outcome", "reportId", "status", "error")
FORMATS: Final = (".csv", ".jsonl")


class ResultsFile:
    """An open ``--output`` file (close it to flush)."""

    def __init__(self, path: Path, file: AtomicText, kind: str) -> None:
        self.path = path
        self.rows = 0
        self._file = file
        self._handle: IO[str] = file.handle
        self._kind = kind
        self._csv = csv.writer(self._handle) if kind == ".csv" else None
        if self._csv is not None:
            self._csv.writerow(COLUMNS)

    def __repr__(self) -> str:
        return f"ResultsFile({str(self.path)!r}, rows={self.rows})"

    @classmethod
    def open(cls, path: str | Path, *, overwrite: bool = False) -> ResultsFile:
        """Start writing ``path``; refused (exit 2) when its format or place is wrong.

        Raises:
            RefusedError: not ``.csv`` or ``.jsonl``.
            StoreFileError: a symlink, not a regular file, an existing file
                without ``overwrite``, or a place that cannot be written.
        """
        target = Path(path)
        kind = target.suffix.lower()
        if kind not in FORMATS:
            raise RefusedError(
                "Unknown --output format", f"{target.name}: name it results.csv or results.jsonl"
            )
        return cls(target, AtomicText(target, overwrite=overwrite, newline=""), kind)

    def write(self, result: ItemResult) -> None:
        """Append the row of one id."""
        self.write_row(result.to_json())

    def write_row(self, row: Mapping[str, Any]) -> None:
        """Append one id's row as :meth:`ItemResult.to_json` made it (a spooled row)."""
        if self._csv is not None:
            # No control characters, server text's formula starts defused; the ids
            # exactly as sent, so the file can be fed back as input (safe_csv).
            self._csv.writerow([safe_export.cell(row[c], exact=c in _ID_COLUMNS) for c in COLUMNS])
        else:
            # C1 and bidi controls escaped (safe_json).
            self._handle.write(safe_export.dumps(row) + "\n")
        self.rows += 1

    def close(self) -> str | None:
        """Put the file in place (once); what went wrong, in words, or None.

        Never raises: the run's outcome, not its results file, decides the exit code.
        """
        try:
            self._file.commit()
        except StoreFileError as exc:
            return str(exc)
        return None


#: Columns holding ids as sent.
_ID_COLUMNS: Final = frozenset({"visitorId", "userAccountId"})


__all__ = ["COLUMNS", "FORMATS", "ResultsFile"]

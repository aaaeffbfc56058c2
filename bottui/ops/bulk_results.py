"""``--output``: one row per id of a bulk run, written as the results come in.

The format follows the file name: ``.csv`` (a header, then one row per id)
or ``.jsonl`` (one JSON object per line). Rows hold the id(s) and line
number, the outcome in the words of :class:`~bottui.ops.bulk.ItemStatus`,
the ``reportId``, the HTTP status and, for a failure, the error in one line.
CSV cells pass :func:`bottui.store.safe_csv.cell` (ids exact, server text without
control characters and formula starts defused); JSONL lines
:mod:`bottui.store.safe_json` (C1 and bidi controls escaped).
The file is opened before anything is sent, so a path that cannot be
written is refused (exit 2) with nothing sent.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Final, TextIO

from bottui.api.errors import RefusedError
from bottui.ops.bulk import ItemResult
from bottui.store import safe_csv, safe_json

COLUMNS: Final = ("line", "visitorId", "userAccountId", "outcome", "reportId", "status", "error")
FORMATS: Final = (".csv", ".jsonl")
#: Columns holding the ids as sent: written exactly, so the file can be fed back.
ID_COLUMNS: Final = frozenset({"visitorId", "userAccountId"})


class ResultsFile:
    """An open ``--output`` file (close it to flush)."""

    def __init__(self, path: Path, handle: TextIO, kind: str) -> None:
        self.path = path
        self.rows = 0
        self._handle = handle
        self._kind = kind
        self._csv = csv.writer(handle) if kind == ".csv" else None
        if self._csv is not None:
            self._csv.writerow(COLUMNS)

    def __repr__(self) -> str:
        return f"ResultsFile({str(self.path)!r}, rows={self.rows})"

    @classmethod
    def open(cls, path: str | Path) -> ResultsFile:
        """Create (or replace) ``path``; RefusedError when its format or place is wrong."""
        target = Path(path)
        kind = target.suffix.lower()
        if kind not in FORMATS:
            raise RefusedError(
                "Unknown --output format", f"{target.name}: name it results.csv or results.jsonl"
            )
        try:
            handle = open(target, "w", encoding="utf-8", newline="")  # noqa: SIM115
        except OSError as exc:
            raise RefusedError(
                "Cannot write the --output file", f"{target}: {exc.strerror or exc}"
            ) from None
        return cls(target, handle, kind)

    def write(self, result: ItemResult) -> None:
        """Append the row of one id."""
        row = result.to_json()
        if self._csv is not None:
            self._csv.writerow([safe_csv.cell(row[c], exact=c in ID_COLUMNS) for c in COLUMNS])
        else:
            self._handle.write(safe_json.dumps(row) + "\n")
        self.rows += 1

    def close(self) -> None:
        """Flush and close."""
        if not self._handle.closed:
            self._handle.close()


__all__ = ["COLUMNS", "FORMATS", "ResultsFile"]

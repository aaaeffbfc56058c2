"""``--output``: one row per id of a bulk run, written as the results come in.

The format follows the file name: ``.csv`` (a header, then one row per id)
or ``.jsonl`` (one JSON object per line). Rows hold the id(s) and line
number, the outcome in the words of :class:`~bottui.ops.bulk.ItemStatus`,
the ``reportId``, the HTTP status and, for a failure, the error in one line.
The file is opened before anything is sent, so a path that cannot be
written is refused (exit 2) with nothing sent.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, TextIO

from bottui.api.errors import RefusedError
from bottui.ops.bulk.status import ItemResult
from bottui.store import safe_csv, safe_json

COLUMNS: Final = ("line", "visitorId", "userAccountId", "outcome", "reportId", "status", "error")
FORMATS: Final = (".csv", ".jsonl")


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
        self.write_row(result.to_json())

    def write_row(self, row: Mapping[str, Any]) -> None:
        """Append one id's row as :meth:`ItemResult.to_json` made it (a spooled row)."""
        if self._csv is not None:
            # No control characters, server text's formula starts defused; the ids
            # exactly as sent, so the file can be fed back as input (safe_csv).
            self._csv.writerow([safe_csv.cell(row[c], exact=c in _ID_COLUMNS) for c in COLUMNS])
        else:
            # C1 and bidi controls escaped (safe_json).
            self._handle.write(safe_json.dumps(row) + "\n")
        self.rows += 1

    def close(self) -> None:
        """Flush and close."""
        if not self._handle.closed:
            self._handle.close()


#: Columns holding ids as sent.
_ID_COLUMNS: Final = frozenset({"visitorId", "userAccountId"})


__all__ = ["COLUMNS", "FORMATS", "ResultsFile"]

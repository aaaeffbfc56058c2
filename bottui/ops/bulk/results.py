"""The per-id results of a bulk run: the ``--output`` file, and the TUI's spool for a later export.

**``--output``** (:class:`ResultsFile`): one row per id, written as the results
come in. The format follows the file name: ``.csv`` (a header, then one row
per id) or ``.jsonl`` (one JSON object per line). Rows hold the id(s) and line
number, the outcome in the words of :class:`~bottui.ops.bulk.report.ItemStatus`,
the ``reportId``, the HTTP status and, for a failure, the error in one line.
The file is opened before anything is sent, so a path that cannot be written
is refused (exit 2) with nothing sent. It is a file for a person
(:mod:`bottui.store.files`): a symlink is refused, an existing file is
replaced only with ``overwrite`` (``--overwrite``), and the rows go to a
temporary file next to it that takes its place when the run ends.

**The spool** (:class:`ResultsSpool`): in the TUI the operator decides at the
summary whether and where to export. So every id's row goes to a private
temporary file (unlinked as it is made: nothing is left behind, even after a
SIGKILL), in batches on the store executor, never on the event loop; the
first :data:`KEPT_PROBLEMS` failed and unknown ids are also kept in memory
for the summary. :meth:`ResultsSpool.export` writes the rows through
:class:`ResultsFile`, exactly as ``--output`` does (same columns, same cleaning).
"""

from __future__ import annotations

import asyncio
import csv
import functools
import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, Final

from bottui.api.errors import RefusedError
from bottui.ops.bulk.report import UNKNOWN_LIKE, ItemResult, ItemStatus
from bottui.store import safe_export
from bottui.store.executor import run_blocking
from bottui.store.files import AtomicText
from bottui.store.store_errors import StoreFileError

# -- the --output file ----------------------------------------------------------------------------


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


# -- the TUI's spool ------------------------------------------------------------------------------


#: Failed and unknown ids kept for the summary (the count goes on; the export has all).
KEPT_PROBLEMS: Final = 1000


#: Rows handed to the writer thread at once.
BATCH: Final = 512


#: What the summary lists: the ids whose grant may still stand, or may not.
PROBLEMS: Final = frozenset({ItemStatus.FAILED, *UNKNOWN_LIKE})


class ResultsSpool:
    """Every id's result of one run, on disk; the failed and unknown ones in memory too.

    :meth:`add` is the engine's ``on_result`` (on the event loop, quick);
    :meth:`finish` once the run ended; then :meth:`export` as often as asked.
    """

    def __init__(self, *, batch: int = BATCH) -> None:
        self.rows = 0
        #: The first failed or unknown results, in the order they came.
        self.problems: list[ItemResult] = []
        #: Failed or unknown results in all.
        self.problem_count = 0
        #: Why rows could not be kept (the export then refuses), or None.
        self.error: str | None = None
        self._batch = batch
        self._pending: list[dict[str, Any]] = []
        self._file: IO[str] | None = None
        self._writing: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"ResultsSpool(rows={self.rows}, problems={self.problem_count})"

    def add(self, result: ItemResult) -> None:
        """Keep one id's result (the engine's ``on_result``)."""
        self._pending.append(result.to_json())
        self.rows += 1
        if result.status in PROBLEMS:
            self.problem_count += 1
            if len(self.problems) < KEPT_PROBLEMS:
                self.problems.append(result)
        if len(self._pending) >= self._batch:
            self._flush()

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if batch:
            # Each write waits for the one before: the rows stay in order.
            self._writing = asyncio.get_running_loop().create_task(
                self._write(self._writing, batch), name="bottui-bulk-spool"
            )

    async def _write(self, before: asyncio.Task[None] | None, batch: list[dict[str, Any]]) -> None:
        if before is not None:
            await before
        if self.error is not None:
            return
        try:
            await run_blocking(functools.partial(self._write_rows, batch))
        except OSError as exc:  # a full disk: the run goes on, the export says why not
            self.error = exc.strerror or str(exc)

    def _write_rows(self, batch: list[dict[str, Any]]) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115
        self._file.writelines(safe_export.dumps(row) + "\n" for row in batch)

    async def finish(self) -> None:
        """Hand the last rows to the writer and wait until every row is on disk."""
        self._flush()
        if self._writing is not None:
            await self._writing

    async def export(self, path: str | Path, *, replace: bool = False) -> Path:
        """Write every row to ``path`` (``.csv`` or ``.jsonl``, as ``--output``).

        Raises:
            RefusedError: a format ``--output`` does not write, ``path`` exists
                and ``replace`` is False, it cannot be written, or the rows
                could not be kept.
        """
        await self.finish()
        if self.error is not None:
            raise RefusedError("The per-id results could not be kept", self.error)
        return await run_blocking(functools.partial(self._export, Path(path), replace))

    def _export(self, target: Path, replace: bool) -> Path:
        try:
            out = ResultsFile.open(target, overwrite=replace)  # a symlink: refused, even so
        except StoreFileError as exc:
            raise RefusedError(exc.title, exc.details) from None
        try:
            if self._file is not None:
                self._file.seek(0)
                for line in self._file:
                    out.write_row(json.loads(line))
                self._file.seek(0, 2)  # appends go on at the end
        finally:
            problem = out.close()
        if problem is not None:
            raise RefusedError("The results were not written", problem)
        return target.resolve()

    def close(self) -> None:
        """Drop the spooled rows (the file is already unlinked)."""
        if self._file is not None:
            self._file.close()
            self._file = None

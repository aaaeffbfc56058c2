"""Per-id results of a run, kept aside for an export chosen after the run (the TUI).

The CLI writes ``--output`` while the run goes; in the TUI the operator
decides at the summary whether and where to export. So every id's row goes
to a private temporary file (unlinked as it is made: nothing is left behind,
even after a SIGKILL), in batches on the store executor, never on the event
loop; the first :data:`KEPT_PROBLEMS` failed and unknown ids are also kept
in memory for the summary. :meth:`ResultsSpool.export` writes the rows
through :class:`~bottui.ops.bulk.results.ResultsFile`, exactly as
``--output`` does (same columns, same cleaning).
"""

from __future__ import annotations

import asyncio
import functools
import json
import tempfile
from pathlib import Path
from typing import IO, Any, Final

from bottui.api.errors import RefusedError
from bottui.ops.bulk.results import ResultsFile
from bottui.ops.bulk.status import UNKNOWN_LIKE, ItemResult, ItemStatus
from bottui.store import safe_export
from bottui.store.errors import StoreFileError
from bottui.store.executor import run_blocking

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


__all__ = ["KEPT_PROBLEMS", "PROBLEMS", "ResultsSpool"]

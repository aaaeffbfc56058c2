"""Export a bulk run's per-id results to a file, as ``bottui revoke --output`` writes it.

A path prompt (``.csv`` or ``.jsonl``; a relative path is taken from the
directory bottui was started in). An existing file is replaced only after
a confirmation with Cancel focused. The rows are those of ``--output``
(:class:`~bottui.ops.bulk.results.ResultsFile`: every value cleaned, ids
exactly as sent), written off the event loop
(:meth:`~bottui.ops.bulk.results.ResultsSpool.export`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from bottui.api.errors import BottuiError
from bottui.ops.bulk.results import FORMATS
from bottui.store.executor import run_blocking
from bottui.tui.error_view import error_text
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.widgets.bulk_words import plural
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import join, safe

if TYPE_CHECKING:
    from bottui.tui.bulk_runs import BackgroundRun


def default_name(run: BackgroundRun) -> str:
    """``bulk-run-12.csv`` (the journal's run id), else ``bulk-results.csv``."""
    run_id = run.summary.run_id if run.summary is not None else None
    return "bulk-results.csv" if run_id is None else f"bulk-run-{run_id}.csv"


class ExportDialog(_Dialog):
    """Ask where to write a run's per-id results; write them; say where they went.

    Args:
        run: The ended run whose results are exported.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Close", id="bulk_export.close"),
    ]

    def __init__(self, run: BackgroundRun) -> None:
        super().__init__()
        self.run = run
        self._busy = False

    def compose(self) -> ComposeResult:
        rows = self.run.spool.rows
        with Vertical(id="bulk-export-box"):
            yield Label(Content("Export per-id results"), classes="dialog-title")
            yield Static(
                Content(
                    f"{plural(rows, 'row')}, one per id: line, ids, outcome, reportId, status, "
                    "error (as bottui revoke --output writes them). A .csv or .jsonl file; "
                    "a relative path starts in the directory bottui was started in."
                ),
                classes="hint",
            )
            yield PlainInput(default_name(self.run), id="bulk-export-path", compact=True)
            yield Static("", id="bulk-export-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="bulk-export-cancel")
                yield Button(Content("Export"), id="bulk-export-write", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#bulk-export-error").display = False
        self.query_one("#bulk-export-path", Input).focus()

    def _say(self, words: Content | None) -> None:
        error = self.query_one("#bulk-export-error", Static)
        error.update(words or "")
        error.display = words is not None

    @on(Input.Submitted, "#bulk-export-path")
    @on(Button.Pressed, "#bulk-export-write")
    def _write(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        if self._busy:
            return
        raw = self.query_one("#bulk-export-path", Input).value.strip()
        if not raw:
            self._say(Content("Give a file name ending in .csv or .jsonl."))
            return
        path = Path(raw).expanduser()
        if path.suffix.lower() not in FORMATS:
            self._say(Content("Name it … .csv or … .jsonl (the two formats --output writes)."))
            return
        self._say(None)
        self._busy = True
        self.run_worker(self._check_then_write(path), group="bulk-export", exit_on_error=False)

    async def _check_then_write(self, path: Path) -> None:
        try:
            exists = await run_blocking(path.exists)
            if exists:
                replace = await self.app.push_screen(
                    ConfirmDialog(
                        "Replace the file?",
                        join(safe(path), " exists. Replace it with this run's results?"),
                        "Replace",
                    ),
                    wait_for_dismiss=True,
                )
                if not replace:
                    self._say(join(safe(path), " exists: not replaced. Give another name."))
                    return
            written = await self.run.spool.export(path, replace=exists)
        except BottuiError as exc:
            self._say(safe(error_text(exc)))
            return
        finally:
            self._busy = False
        self.notify(
            clean_words(self.run.spool.rows, written),
            title="Exported",
            markup=False,
        )
        self.dismiss(None)

    @on(Button.Pressed, "#bulk-export-cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)


def clean_words(rows: int, path: Path) -> str:
    """``Wrote 3,000 rows to /tmp/bulk-run-3.csv`` (the path cleaned: it is data)."""
    from bottui.plaintext import clean

    return f"Wrote {plural(rows, 'row')} to {clean(str(path))}"


__all__ = ["ExportDialog", "clean_words", "default_name"]

"""One bulk run's ids, page by page: what Enter (or →) opens on a run's journal row.

The Journal screen shows a bulk run as one row (:class:`~bottui.tui.widgets.
journal_table.RunGroup`); this dialog reads the run's entries from the
journal the screen reads (this machine's or the team's), :data:`RUN_PAGE`
at a time, awaited in a worker (the store reads on its own thread), the next
page when the cursor nears the end or on ``m``. The header counts the
outcomes of the entries read so far and says when every one is read.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Label, Static

from bottui.ops import journal_pages, journal_view
from bottui.store.journal.protocol import EntryPage, EntryQuery, RunId
from bottui.store.journal.records import JournalEntry
from bottui.store.paging import Cursor
from bottui.tui.error_report import EXPECTED_ERRORS, error_line
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.services import services_of
from bottui.tui.widgets.journal_table import RunGroup, outcome_cell
from bottui.tui.widgets.untrusted_text import safe, safe_id_text

#: Entries each read of the dialog adds.
RUN_PAGE: Final = 100
#: The next page is read when the cursor comes this close to the last row.
LOOKAHEAD: Final = 10


class RunDialog(ModalScreen[None]):
    """The ids of one bulk run and how each ended; escape closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="journal.run.close"),
        Binding("m", "more", "More ids", id="journal.run.more"),
    ]
    DEFAULT_CSS = """
    RunDialog { align: center middle; }
    RunDialog #run-box { height: 90%; }
    RunDialog #run-ids { height: 1fr; }
    """

    def __init__(self, group: RunGroup) -> None:
        super().__init__()
        self._group = group
        self._counts = RunGroup(group.newest)
        self._next: Cursor | None = None
        self._started = False
        self._reading = False
        self._problem: Content | None = None

    def compose(self) -> ComposeResult:
        newest = self._group.newest
        title = (
            f"Bulk {journal_view.run_ref(newest)}: "
            f"{journal_view.operation_text(newest, short=True)}, {newest.account}/{newest.project}"
        )
        with Vertical(classes="journal-dialog", id="run-box"):
            yield Label(safe(title), classes="dialog-title")
            yield Static("", id="run-summary")
            table: DataTable[Any] = MeasuredTable(
                cursor_type="row", zebra_stripes=True, id="run-ids"
            )
            table.add_columns("Entry", "Id", "Outcome", "HTTP")
            yield table
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#run-ids", DataTable).focus()
        self.action_more()

    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)

    @on(Button.Pressed, "#close")
    def _close(self) -> None:
        self.dismiss(None)

    def action_more(self) -> None:
        """Read the next page of the run's entries."""
        if self._reading or (self._started and self._next is None):
            return
        if self._group.newest.local_id is not None:
            # A teammate's run: run ids are per journal file, and a --run query reads
            # this machine's. Its ids would be another run's: say so, list none (#27).
            self._started = True
            self.query_one("#run-summary", Static).update(
                Content(
                    f"{self._group.outcome_words()} · a teammate's run "
                    f"({journal_view.run_ref(self._group.newest)}): its ids are not listed here "
                    "(run ids are per machine; / filters the Journal by operator)"
                )
            )
            return
        self._reading = True
        services = services_of(self)
        store = services.journal_pages()
        query = EntryQuery(run_id=RunId(self._group.run_id or 0))
        cursor = self._next

        async def read() -> None:
            try:
                page = await journal_pages.read_page(store, query, limit=RUN_PAGE, cursor=cursor)
            except EXPECTED_ERRORS as exc:
                page, self._problem = EntryPage((), None), error_line("Cannot read the run: ", exc)
            self._show(page)

        self.run_worker(read(), group="run-ids", exit_on_error=False)

    def _show(self, page: EntryPage) -> None:
        self._started, self._reading = True, False
        self._next = page.next
        table = self.query_one("#run-ids", DataTable)
        for entry in page.entries:
            if self._counts.add(entry):
                table.add_row(*_cells(entry), key=journal_view.entry_key(entry))
        read = self._counts.count
        more = f"the first {read} read; more below (m)" if self._next is not None else f"all {read}"
        summary = Content(f"{self._counts.outcome_words() or 'no entries'} · {more}")
        if self._problem is not None:
            summary = Content("\n").join([summary, self._problem])
        self.query_one("#run-summary", Static).update(summary)

    @on(DataTable.RowHighlighted, "#run-ids")
    def _near_the_end(self, event: DataTable.RowHighlighted) -> None:
        if self._next is not None and event.cursor_row >= event.data_table.row_count - LOOKAHEAD:
            self.action_more()


def _cells(entry: JournalEntry) -> tuple[Text, ...]:
    return (
        Text(journal_view.entry_ref(entry)),
        safe_id_text(journal_view.target_id(entry)),
        outcome_cell(entry),
        Text(journal_view.status_text(entry)),
    )


__all__ = ["RUN_PAGE", "RunDialog"]

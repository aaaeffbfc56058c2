"""The Timed screen (``T``): the timed changes of this profile, and what to do with them (#15).

One row per timed change: its id, what it changed, the project, what it
reverts to, when (``in 14m`` / ``late by 3m`` and the UTC time), who performs
or performed the revert, and its state (``in doubt``: claimed, and no outcome
for 10 minutes; ``bottui timed resolve ID`` settles it). ``x`` extends (asks how much later),
``k`` keeps the change (cancels its revert, after asking), ``r`` reverts now
(asks, with the same rules as any change), ``a`` shows the finished ones too.
A line above the table says who will perform the reverts: this TUI while it
runs, else the executor the journal knows, else a warning that none is known.

Rows are read in workers (the journal's async facade) on opening, after
each action and every few seconds; every cell is cleaned text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, ClassVar, Final

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Label, Static

from bottui.ops.timed.schedule import NO_EXECUTOR_WARNING, executor_known, list_timed
from bottui.ops.timed_record import now_of
from bottui.plaintext import clean
from bottui.tui import timed_changes
from bottui.tui.perf.textual_private import MeasuredTable, still_shown
from bottui.tui.screens.base import UsesServices
from bottui.tui.screens.dialogs import ListModal
from bottui.tui.services import InventoryChanged
from bottui.tui.ui_rules import show_widget
from bottui.tui.widgets.untrusted_text import join, safe, safe_text

if TYPE_CHECKING:
    from bottui.ops.timed.schedule import TimedChange


#: State, due and executor first: at 80 columns the last columns are cut, and
#: those say whether the revert will happen ("superseded by #6", #27); the project
#: is in the header.
COLUMNS: Final = (
    ("id", "ID"),
    ("state", "State"),
    ("due", "Due"),
    ("executor", "Executor"),
    ("what", "What"),
    ("to", "Reverts to"),
    ("project", "Project"),
)
EMPTY: Final = "No timed change pending. A duration in a change's confirmation makes one."
#: Seconds between two reads of the rows while the screen is open.
REREAD_EVERY: Final = 5.0


def _state_words(row: TimedChange, now: datetime) -> str:
    """``scheduled``, ``in doubt``; ``superseded by #3`` (foreseen or recorded: not sent)."""
    if row.state == "superseded" and row.superseded_by:
        return clean(f"superseded by {row.superseded_by}")
    return row.shown_state(now)


class TimedScreen(ListModal, UsesServices):
    """The timed changes of the profile: extend, keep, revert now."""

    SCREEN_TITLE: ClassVar[str] = "Timed changes"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "extend", "Extend", id="timed.extend"),
        Binding("k", "keep", "Keep (cancel revert)", id="timed.keep"),
        Binding("r", "revert", "Revert now", id="timed.revert"),
        Binding("a", "all", "Show finished too", id="timed.all"),
        Binding("escape", "close", "Close", id="timed.close"),
    ]
    DEFAULT_CSS = """
    TimedScreen #timed-table { height: 1fr; }
    TimedScreen #timed-executor { color: $text-muted; }
    TimedScreen #timed-executor.-warning { color: $warning; text-style: bold; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[TimedChange] = []
        self._all = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                Content("Timed changes (they revert by themselves)"), classes="dialog-title"
            )
            yield Static(
                Content(
                    "x extend · k keep the change · r revert now · a finished too · escape close"
                ),
                classes="hint",
            )
            yield Static("", id="timed-executor")
            yield Static(Content(EMPTY), id="timed-empty")
            yield MeasuredTable(cursor_type="row", zebra_stripes=True, id="timed-table")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one("#timed-table", DataTable)
        for key, heading in COLUMNS:
            table.add_column(heading, key=key)
        show_widget(table, False)  # until rows are read; then it takes the focus
        self.reread()
        self.set_interval(REREAD_EVERY, self.reread)

    def on_inventory_changed(self, _message: InventoryChanged) -> None:
        """A change was journaled (here, by another bottui, a teammate): read the rows again."""
        self.reread()

    @work(name="timed changes", group="timed-read", exclusive=True, exit_on_error=False)
    async def reread(self) -> None:
        """Read the rows again (a worker: a newer read replaces one still under way)."""
        services = self.services
        session = services.session
        try:
            rows = await list_timed(session, include_done=self._all)
            runner = services.timed_runner
            if runner is not None and runner.running:
                known: str | None = "this TUI while it runs (every 15 s)"
            else:
                known = await executor_known(session)
        except Exception as exc:  # a journal that cannot be read: said like any failure
            services.report(exc, operation="Reading timed changes")
            return
        services.flush_warnings()  # a timed event skipped (unreadable): said once
        if still_shown(self):  # not left (or the app closed) during the read
            self._show(rows, known)

    def _show(self, rows: list[TimedChange], known: str | None) -> None:

        executor = self.query_one("#timed-executor", Static)
        executor.set_class(known is None, "-warning")
        executor.update(
            Content(NO_EXECUTOR_WARNING)
            if known is None
            else join("Reverts are performed by: ", safe(known))
        )
        now = now_of(self.services.session)
        table: DataTable[Text] = self.query_one("#timed-table", DataTable)
        cursor = table.cursor_row
        self._rows = rows
        table.clear()
        for row in rows:
            due = f"{row.when_text(now)}"
            if not row.done:
                due += f" ({row.due_at.strftime('%H:%M')} UTC)"
            late = not row.done and row.due_at < now
            state = Text(
                _state_words(row, now),
                style="bold" if row.state in ("failed", "unknown") or row.in_doubt(now) else "",
            )
            table.add_row(
                Text(row.id),
                state,
                Text(due, style="bold" if late else ""),
                safe_text(row.executor or "—"),
                safe_text(row.what),
                safe_text(row.revert_to),
                safe_text(row.project),
            )
        self.query_one("#timed-empty").display = not rows
        show_widget(table, bool(rows), take_focus=True)
        if rows:
            table.move_cursor(row=min(max(cursor, 0), len(rows) - 1))

    def _highlighted(self) -> TimedChange | None:
        table: DataTable[Text] = self.query_one("#timed-table", DataTable)
        index = table.cursor_row
        if not self._rows or not 0 <= index < len(self._rows):
            self.notify("No timed change here.", markup=False)
            return None
        return self._rows[index]

    def _open(self, doing: str) -> TimedChange | None:
        """The highlighted timed change if it still waits for its revert, else say why not."""
        row = self._highlighted()
        if row is not None and row.state != "scheduled":
            words = _state_words(row, now_of(self.services.session))
            self.notify(
                clean(f"Timed change {row.id} is {words}: nothing to {doing}."),
                markup=False,
            )
            return None
        return row

    def action_extend(self) -> None:
        """Ask how much later the highlighted timed change reverts."""
        row = self._open("extend")
        if row is not None:
            due = row.when_text(now_of(self.services.session))
            self._act(partial(timed_changes.extend, self.services, row, due))

    def action_keep(self) -> None:
        """Keep the highlighted change: cancel its revert, after asking."""
        row = self._open("cancel")
        if row is not None:
            self._act(partial(timed_changes.keep, self.services, row))

    def action_revert(self) -> None:
        """Revert the highlighted change now, after asking."""
        row = self._open("revert")
        if row is not None:
            now = now_of(self.services.session)
            late = now - row.due_at if row.due_at < now else None
            self._act(partial(timed_changes.revert, self.services, row, late=late))

    @work(group="timed", exit_on_error=False)
    async def _act(self, action: Callable[[], Awaitable[None]]) -> None:
        """Ask, then do ``action`` (extend, keep, revert now); the rows are read again after."""
        try:
            await action()
        finally:
            self.reread()

    def action_all(self) -> None:
        """Show the finished timed changes too (again: only those pending)."""
        self._all = not self._all
        self.reread()

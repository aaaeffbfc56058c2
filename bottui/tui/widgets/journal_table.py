"""The journal's entries as a table, newest first.

Every cell is untrusted (ids, operators and targets come from the user, the
server or another process) and goes through ``safe_text``. An entry without
an outcome reads ``! UNFINISHED`` in reverse video: the word carries the
meaning, so it reads the same with ``NO_COLOR``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from bottui.ops import journal_view
from bottui.store.journal import JournalEntry
from bottui.tui.widgets.safe import safe_text

#: Column key -> heading.
COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("operator", "Operator"),
    ("operation", "Operation"),
    ("target", "Target"),
    ("outcome", "Outcome"),
    ("status", "HTTP"),
    ("duration", "Took"),
)

_OUTCOME_STYLES: Final = {
    **{word: "green" for word in journal_view.OUTCOME_GROUPS["succeeded"]},
    **{word: "red" for word in journal_view.OUTCOME_GROUPS["failed"]},
    **{word: "yellow" for word in journal_view.OUTCOME_GROUPS["unknown"]},
}


def outcome_cell(entry: JournalEntry) -> Text:
    """The outcome word; an unfinished entry is marked in words, colour only helps."""
    if entry.unfinished:
        return Text("! UNFINISHED", style="bold reverse")
    return safe_text(
        journal_view.outcome_text(entry), style=_OUTCOME_STYLES.get(entry.outcome or "", "")
    )


class JournalTable(DataTable[Text]):
    """One row per journal entry; the cursor selects one for details."""

    # Enter opens the entry in full (DataTable's own "Select", renamed for help).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Details", id="journal.details"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)
        self._entries: dict[str, JournalEntry] = {}

    def on_mount(self) -> None:
        for key, heading in COLUMNS:
            self.add_column(heading, key=key)

    @property
    def entries(self) -> list[JournalEntry]:
        """The rows shown, in table order."""
        return list(self._entries.values())

    def show(self, entries: Sequence[JournalEntry], *, with_project: bool) -> None:
        """Replace the rows, keeping the cursor on the same entry when it is still shown.

        Args:
            entries: Newest first.
            with_project: Prefix targets with their project (entries of several projects).
        """
        keep = self.selected.id if self.selected else None
        self.clear()
        self._entries = {str(entry.id): entry for entry in entries}
        for entry in entries:
            target = journal_view.target_text(entry)
            if with_project:
                target = f"{entry.project}: {target}"
            self.add_row(
                Text(journal_view.short_when(entry)),
                safe_text(entry.operator),
                safe_text(journal_view.operation_text(entry, short=True)),
                safe_text(target),
                outcome_cell(entry),
                Text(journal_view.status_text(entry)),
                Text(journal_view.duration_text(entry), justify="right"),
                key=str(entry.id),
            )
        if keep is not None and str(keep) in self._entries:
            self.move_cursor(row=self.get_row_index(str(keep)), animate=False)

    @property
    def selected(self) -> JournalEntry | None:
        """The entry under the cursor, if any."""
        if not self._entries or self.row_count == 0:
            return None
        row = self.cursor_row
        if not 0 <= row < self.row_count:
            return None
        key = self.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
        return self._entries.get(key) if key is not None else None

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

from bottui.ops import journal_view
from bottui.store.journal_records import JournalEntry
from bottui.tui.tones import tone
from bottui.tui.widgets.entry_table import EntryTable
from bottui.tui.widgets.safe import safe_id_text, safe_text

#: Column key -> heading.
COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("operator", "Operator"),
    ("operation", "Operation"),
    ("target", "Target"),
    ("outcome", "Outcome"),
    ("status", "HTTP"),
    ("duration", "Took"),
    ("reason", "Why"),
)
#: Characters of a reason the table shows (the entry's details show it whole).
REASON_CELL: Final = 24

#: Outcome word -> (attributes, colour): the attributes tell the group without colour.
_OUTCOME_STYLES: Final = {
    **{word: ("", "green") for word in journal_view.OUTCOME_GROUPS["succeeded"]},
    **{word: ("bold", "red") for word in journal_view.OUTCOME_GROUPS["failed"]},
    **{word: ("bold underline", "yellow") for word in journal_view.OUTCOME_GROUPS["unknown"]},
}


def outcome_cell(entry: JournalEntry) -> Text:
    """The outcome word; an unfinished entry is marked in words, colour only helps."""
    if entry.unfinished:
        cell = Text("! UNFINISHED", style="bold reverse")
    else:
        cell = safe_text(
            journal_view.outcome_text(entry),
            style=tone(*_OUTCOME_STYLES.get(entry.outcome or "", ("", ""))),
        )
    if entry.shared is False:  # with a team store: still only in this machine's journal
        cell.append(" · not yet shared", style="italic")
    return cell


class JournalTable(EntryTable[JournalEntry]):
    """One row per journal entry; the cursor selects one for details."""

    # Enter opens the entry in full (DataTable's own "Select", renamed for help).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Details", id="journal.details"),
    ]

    # The module-level COLUMNS above: the class body has not bound the name yet.
    COLUMNS = COLUMNS

    def show(self, entries: Sequence[JournalEntry], *, with_project: bool) -> None:
        """Replace the rows, keeping the cursor on the same entry when it is still shown.

        Args:
            entries: Newest first.
            with_project: Prefix targets with their project (entries of several projects).
        """
        # Journal ids are integers; row keys are strings.
        self._replace_rows(
            (str(entry.id), entry, _cells(entry, with_project=with_project)) for entry in entries
        )

    def append(self, entries: Sequence[JournalEntry], *, with_project: bool) -> None:
        """Add older entries below the rows; the cursor stays, an entry shown is skipped."""
        for entry in entries:
            key = str(entry.id)
            if key in self._entries:
                continue
            self._entries[key] = entry
            self.add_row(*_cells(entry, with_project=with_project), key=key)


def _cells(entry: JournalEntry, *, with_project: bool) -> tuple[Text, ...]:
    """One entry's cells, in ``COLUMNS`` order; untrusted text goes through ``safe_text``."""
    target = journal_view.target_text(entry)
    if with_project:
        target = f"{entry.project}: {target}"
    return (
        Text(journal_view.short_when(entry)),
        safe_text(entry.operator),
        safe_text(journal_view.operation_text(entry, short=True)),
        safe_id_text(target),
        outcome_cell(entry),
        Text(journal_view.status_text(entry)),
        Text(journal_view.duration_text(entry), justify="right"),
        safe_text(journal_view.reason_text(entry, REASON_CELL)),
    )

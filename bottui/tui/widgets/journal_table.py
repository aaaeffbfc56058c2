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
from textual.message import Message

from bottui.ops import journal_view
from bottui.store.journal.records import JournalEntry, Operation, RunId, RunRest
from bottui.tui.ui_rules import tone
from bottui.tui.widgets.entry_table import EntryTable
from bottui.tui.widgets.untrusted_text import safe_id_text, safe_text

#: Column key -> heading.
COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("operator", "Operator"),
    ("operation", "Operation"),
    ("target", "Target"),
    ("outcome", "Outcome"),
    ("reason", "Why"),
    ("status", "HTTP"),
    ("duration", "Took"),
)
#: Characters of a reason the table shows at 100 columns (the entry's details
#: show it whole); it grows with the screen (:func:`cell_widths`).
REASON_CELL: Final = 24
#: Characters of a target the table shows: cut with ``…`` so the Outcome column
#: after it stays on a 100-column screen (a bulk revocation's subject, with its
#: project, pushed it past the edge: ``nothing-sta``); the details show it whole.
TARGET_CELL: Final = 32
#: The screen width the two cells above were made for.
DESIGN_WIDTH: Final = 100
#: Below it, the narrowest they get (80 columns: Why stays in view, #27).
NARROW_TARGET: Final = 16
NARROW_REASON: Final = 12


def cell_widths(screen_width: int) -> tuple[int, int]:
    """(target, reason) characters for a screen ``screen_width`` columns wide.

    At 100 columns 32 and 24; wider, every column more goes to the reason
    (the Why stayed 24 characters at 200 columns); narrower, both shrink
    so Why stays in view before HTTP and Took.
    """
    if screen_width >= DESIGN_WIDTH:
        return TARGET_CELL, REASON_CELL + screen_width - DESIGN_WIDTH
    return NARROW_TARGET, NARROW_REASON


#: Row keys of a bulk run's one row: ``run:<run id>`` (entries' keys are their ids).
RUN_KEY: Final = "run:"

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
    sharing = journal_view.sharing_text(entry)
    if sharing:  # with a team store: only in this machine's journal (waiting, or older)
        cell.append(f" · {sharing}", style="italic")
    return cell


def cut(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters, ``…`` marking a cut."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= width else one_line[: width - 1] + "…"


class JournalTable(EntryTable[JournalEntry]):
    """One row per journal entry, and one per bulk run; the cursor selects one for details.

    The entries of a bulk run (same ``run_id``) share one row, keyed
    ``run:<id>``, placed where its newest loaded entry is: the count and the
    outcome counts of its entries loaded so far (:class:`RunGroup`). Its
    :attr:`selected` entry is the run's newest; :attr:`selected_run` says a
    run row is under the cursor (Enter lists its ids, page by page).
    """

    # Enter opens the entry in full (DataTable's own "Select", renamed for help).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Details", id="journal.details"),
        Binding("right", "expand", "Expand a bulk run", show=False, id="journal.expand"),
    ]

    # The module-level COLUMNS above: the class body has not bound the name yet.
    COLUMNS = COLUMNS

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._runs: dict[str, RunGroup] = {}
        #: (target, reason) characters the cells were made with.
        self.widths: tuple[int, int] = (TARGET_CELL, REASON_CELL)

    class Resized(Message):
        """The screen's width changed the cells' widths: the rows are to be read again."""

    class AtEnd(Message):
        """``ctrl+end`` took the cursor to the last row: older rows are wanted."""

    def action_scroll_bottom(self) -> None:
        """Ask for older rows, and go to the last row (no row highlight comes
        when the cursor is on the last row already: a bulk run's one row, say).
        Asked first: the read the highlight starts would not go past a run."""
        self.post_message(self.AtEnd())
        super().action_scroll_bottom()

    def only_run_shown(self, entries: Sequence[JournalEntry]) -> RunId | None:
        """The run of this machine's journal every one of ``entries`` belongs to,
        when its row is shown already (they would add no row), else None."""
        runs = {(e.run_id, e.local_id) for e in entries}
        if len(runs) != 1:
            return None
        ((run_id, local_id),) = runs
        if run_id is None or local_id is not None or f"{RUN_KEY}{run_id}" not in self._runs:
            return None
        return RunId(run_id)

    def add_rest(self, run_id: RunId, rest: RunRest, *, with_project: bool) -> None:
        """Count the rest of a run (read as counts, not entries) in its row."""
        key = f"{RUN_KEY}{run_id}"
        group = self._runs[key]
        group.add_rest(rest)
        cells = group.cells(with_project=with_project, widths=self.widths)
        for (column, _heading), cell in zip(COLUMNS, cells, strict=True):
            self.update_cell(key, column, cell)

    def _take_widths(self) -> tuple[int, int]:
        """The widths for the screen as it is now (remembered for :meth:`on_resize`)."""
        self.widths = cell_widths(self.app.size.width)
        return self.widths

    def on_resize(self) -> None:
        """A wider or narrower screen: rows made for another width are read again."""
        if cell_widths(self.app.size.width) != self.widths and self.row_count:
            self.post_message(self.Resized())

    def action_expand(self) -> None:
        """On a bulk run's row: list its ids (as Enter); elsewhere scroll right."""
        if self.selected_run is not None:
            self.action_select_cursor()
        else:
            self.action_cursor_right()

    @property
    def not_shared(self) -> int:
        """Rows of entries journaled here before the team store and not shared."""
        return sum(1 for entry in self.all_entries if entry.before_store)

    @property
    def selected_run(self) -> RunGroup | None:
        """The bulk run whose row is under the cursor, if it is one."""
        key = self._cursor_key()
        return None if key is None else self._runs.get(key)

    def show(
        self, entries: Sequence[JournalEntry], *, with_project: bool, more: bool = False
    ) -> None:
        """Replace the rows, keeping the cursor on the same entry when it is still shown.

        Args:
            entries: Newest first.
            with_project: Prefix targets with their project (entries of several projects).
            more: Older entries are still to be read: a run the last entry belongs
                to may hold more than those read (its count says ``+``).
        """
        self._runs = {}
        widths = self._take_widths()
        rows: list[tuple[str, JournalEntry, tuple[Text, ...]]] = []
        for entry in entries:
            if entry.run_id is None:
                # Local numbers and teammates' event ids are two namespaces: one key each.
                key = journal_view.entry_key(entry)
                cells = _cells(entry, with_project=with_project, widths=widths)
                rows.append((key, entry, cells))
                continue
            key = f"{RUN_KEY}{journal_view.run_key(entry)}"
            group = self._runs.get(key)
            if group is None:
                group = self._runs[key] = RunGroup(entry)
                rows.append((key, entry, ()))
            group.add(entry)
        self._mark_open(entries, more)
        self._replace_rows(
            (key, entry, cells or self._runs[key].cells(with_project=with_project, widths=widths))
            for key, entry, cells in rows
        )

    def _mark_open(self, entries: Sequence[JournalEntry], more: bool) -> None:
        for group in self._runs.values():
            group.open = False
        last = entries[-1] if entries else None
        if more and last is not None and last.run_id is not None:
            self._runs[f"{RUN_KEY}{journal_view.run_key(last)}"].open = True

    def append(
        self, entries: Sequence[JournalEntry], *, with_project: bool, more: bool = False
    ) -> None:
        """Add older entries below the rows; the cursor stays, an entry shown is skipped."""
        changed = {k for k, g in self._runs.items() if g.open}  # may lose their "+"
        for entry in entries:
            if entry.run_id is None:
                key = journal_view.entry_key(entry)
                if key not in self._entries:
                    self._entries[key] = entry
                    cells = _cells(entry, with_project=with_project, widths=self.widths)
                    self.add_row(*cells, key=key)
                continue
            key = f"{RUN_KEY}{journal_view.run_key(entry)}"
            known = self._runs.get(key)
            if known is None:
                self._runs[key] = RunGroup(entry)
                self._entries[key] = entry
                self.add_row(*(Text(""),) * len(COLUMNS), key=key)
            # An older part of a run shown: its one row counts it.
            if self._runs[key].add(entry):
                changed.add(key)
        self._mark_open(entries, more)
        changed |= {k for k, g in self._runs.items() if g.open}
        for key in changed:
            cells = self._runs[key].cells(with_project=with_project, widths=self.widths)
            for (column, _heading), cell in zip(COLUMNS, cells, strict=True):
                self.update_cell(key, column, cell)


class RunGroup:
    """The loaded entries of one bulk run, counted by outcome."""

    def __init__(self, newest: JournalEntry) -> None:
        #: The run's newest loaded entry (its time, operator, operation, project).
        self.newest = newest
        self.run_id = newest.run_id
        self.count = 0
        #: Outcome word (``UNFINISHED`` for none) -> how many.
        self.outcomes: dict[str, int] = {}
        #: True while older entries still to be read may belong to the run.
        self.open = False
        self._seen: set[str] = set()
        #: The distinct reasons of the loaded entries: a resume may have given another.
        self.reasons: set[str] = set()

    def add(self, entry: JournalEntry) -> bool:
        """Count ``entry`` (once); True when it was new."""
        key = journal_view.entry_key(entry)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.count += 1
        if entry.reason:
            self.reasons.add(" ".join(entry.reason.split()))
        word = journal_view.outcome_text(entry).split(" ")[0]
        self.outcomes[word] = self.outcomes.get(word, 0) + 1
        return True

    def add_rest(self, rest: RunRest) -> None:
        """Count the run's entries older than those loaded, from their counts:
        after it the row counts the whole run (they are never read one by one)."""
        for word, count in rest.outcomes.items():
            shown = journal_view.UNFINISHED.upper() if word is None else word
            self.outcomes[shown] = self.outcomes.get(shown, 0) + count
            self.count += count
        self.reasons |= {" ".join(reason.split()) for reason in rest.reasons}
        self.open = False

    def outcome_words(self) -> str:
        """``12 withdrawn, 3 api-error``: most first."""
        ranked = sorted(self.outcomes.items(), key=lambda item: (-item[1], item[0]))
        return ", ".join(f"{n} {word}" for word, n in ranked)

    def cells(
        self, *, with_project: bool, widths: tuple[int, int] = (TARGET_CELL, REASON_CELL)
    ) -> tuple[Text, ...]:
        """The run's row: ``▸ bulk run #7 · 15 ids`` and its outcome counts."""
        target_width, reason_width = widths
        newest = self.newest
        # A bulk run revokes grants by id; any other run is a playbook's steps.
        bulk = newest.operation == Operation.REVOKE_GRANT
        operation = journal_view.operation_text(newest, short=True)
        items = "ids" if bulk else "steps"
        run = journal_view.run_ref(newest)
        what = f"▸ {self.count}{'+' if self.open else ''} {items}, {run}"
        if with_project:
            what = f"{newest.project}: {what}"
        failed = any(w not in journal_view.OUTCOME_GROUPS["succeeded"] for w in self.outcomes)
        return (
            Text(journal_view.short_when(newest)),
            safe_text(newest.operator),
            safe_text(f"bulk {operation}" if bulk else "playbook"),
            safe_id_text(cut(what, target_width)),
            safe_text(self.outcome_words(), style="bold" if failed else ""),
            safe_text(self.reason_cell(reason_width)),
            Text(""),
            Text(""),
        )

    def reason_cell(self, width: int = REASON_CELL) -> str:
        """The newest entry's reason; ``(2 reasons) …`` when a resume gave another."""
        newest = journal_view.reason_text(self.newest, width)
        if len(self.reasons) <= 1:
            return newest
        return cut(f"({len(self.reasons)} reasons) {newest}", width)


def _cells(
    entry: JournalEntry,
    *,
    with_project: bool,
    widths: tuple[int, int] = (TARGET_CELL, REASON_CELL),
) -> tuple[Text, ...]:
    """One entry's cells, in ``COLUMNS`` order; untrusted text goes through ``safe_text``."""
    target_width, reason_width = widths
    target = journal_view.target_text(entry)
    if with_project:
        target = f"{entry.project}: {target}"
    return (
        Text(journal_view.short_when(entry)),
        safe_text(entry.operator),
        safe_text(journal_view.operation_text(entry, short=True)),
        safe_id_text(cut(target, target_width)),
        outcome_cell(entry),
        safe_text(journal_view.reason_text(entry, reason_width)),
        Text(journal_view.status_text(entry)),
        Text(journal_view.duration_text(entry), justify="right"),
    )

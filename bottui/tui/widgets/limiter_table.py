"""The rate limiters of one project, as the inventory knows them, and how each state is known.

The API cannot list rate limiters, so every row is an inventory entry: an id
from the team's inventory file, from a project the service returned, or
typed by the operator. Each row says how its state is known, because a state
learned from the service's answer and one we merely sent are not equally
trustworthy.

Rows can be *marked* (space; ``*`` for every row shown) to enable or disable
several limiters in one confirmation: a marked row shows :data:`MARK` in its
first column, in words, not in colour alone. Marks are kept while a filter
hides their rows, and dropped with the rows they belong to.

A state the team's shared inventory brought in has the source
``team:<operator>`` and the server's time as ``known_at``; the Limiters and
Thresholds screens show it as "from bob's change 03:12" (:func:`taught_words`:
the operator cleaned and cut short, the time in the local time zone), so a
state nobody here saw is not taken for one this operator learned (#13).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Final

from rich.text import Text

from bottui.plaintext import clean
from bottui.store.inventory.inventory_records import LimiterEntry, Source, taught_by
from bottui.tui.perf.incremental_table import IncrementalTable
from bottui.tui.ui_rules import tone
from bottui.tui.widgets.untrusted_text import safe_id_text, safe_text

#: What the first column shows on a marked row.
MARK: Final = "●"

#: Column key -> heading.
COLUMNS: Final = (
    ("mark", " "),
    ("id", "ID"),
    ("name", "Name"),
    ("state", "State"),
    ("known_at", "Known at (UTC)"),
    ("source", "How we know"),
)

#: Source of a state -> the words in the "How we know" column.
SOURCE_WORDS: Final[dict[str, str]] = {
    Source.RESPONSE: "response",
    Source.REQUEST: "request",
    Source.USER: "entered",
    Source.IMPORT: "file",
}

#: Source of a state -> a phrase for sentences ("Last known: ON, ...").
SOURCE_PHRASES: Final[dict[str, str]] = {
    Source.RESPONSE: "listed in the service's answer",
    Source.REQUEST: "the state we sent; the answer did not say",
    Source.USER: "typed here",
    Source.IMPORT: "from an inventory file",
}

#: One line explaining the words above (shown under the table).
SOURCE_LEGEND: Final = (
    "response: the service's answer listed it · request: the state we sent, the answer "
    "did not say · entered: typed here · file: an inventory file"
)


def state_word(is_active: bool | None) -> str:
    """ON, OFF, or ? when the state is not known."""
    if is_active is None:
        return "?"
    return "ON" if is_active else "OFF"


def state_text(is_active: bool | None) -> Text:
    """The state cell: the word carries the meaning, colour only helps (NO_COLOR)."""
    if is_active is None:
        return Text("?", style=tone("bold underline", "yellow"))
    if is_active:
        return Text("ON", style=tone("bold", "green"))
    return Text("OFF", style=tone("bold", "red"))


#: How a row's source says its last attempt did not succeed (see :func:`flagged_source`).
TRY_PREFIX: Final = "last try "


def flagged_source(mark: str, source: str) -> str:
    """A row's source carrying its last attempt's mark (``FAILED``, ``UNKNOWN``)."""
    return f"{TRY_PREFIX}{mark} (e) · {SOURCE_WORDS.get(source, source)}"


def split_flag(source: str) -> tuple[str | None, str]:
    """(the last attempt's mark or None, the source's words) of a row's source."""
    if not source.startswith(TRY_PREFIX):
        return None, SOURCE_WORDS.get(source, source)
    flag, _, words = source.removeprefix(TRY_PREFIX).partition(" (e) · ")
    return flag, words


def short_time(stamp: str) -> str:
    """``2026-11-21T03:00:00.000000Z`` -> ``2026-11-21 03:00:00`` (the stores' shape)."""
    if len(stamp) >= 19 and stamp[10] == "T":
        return f"{stamp[:10]} {stamp[11:19]}"
    return stamp


#: What a limiter's cells are made from: the entry (every field is shown) and its mark.
_View = tuple[LimiterEntry, bool]


class LimiterTable(IncrementalTable[LimiterEntry, _View]):
    """One row per known rate limiter of the current project; the cursor selects, space marks."""

    # The module-level COLUMNS above: the class body has not bound the name yet.
    COLUMNS = COLUMNS

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: The ids of the marked limiters (shown or hidden by the filter).
        self.marked: set[str] = set()

    def show(self, entries: Sequence[LimiterEntry], *, select: str | None = None) -> None:
        """Show the rows; keep the cursor on the same limiter (or on ``select``).

        The same limiters shown again (switching back to the screen) are
        updated in place, only those that changed (see ``_update_rows``).
        Marks of limiters no longer listed are dropped.
        """
        rows = [(entry.id, entry) for entry in entries]
        self.marked.intersection_update(key for key, _entry in rows)
        self._update_rows(rows, self._view, _cells, select=select)

    def _view(self, entry: LimiterEntry) -> _View:
        return (entry, entry.id in self.marked)

    def set_marks(self, ids: Iterable[str], marked: bool) -> None:
        """Mark (or unmark) these limiters; their rows are redrawn in place."""
        keys = list(ids)
        if marked:
            self.marked.update(keys)
        else:
            self.marked.difference_update(keys)
        self._refresh_rows(keys, self._view)

    @property
    def marked_entries(self) -> list[LimiterEntry]:
        """The marked limiters, in table order, also those the filter hides."""
        return [entry for entry in self.all_entries if entry.id in self.marked]

    @property
    def hidden_marks(self) -> set[str]:
        """The marked limiters the filter hides."""
        return self.marked.difference(self._entries)


def _cells(view: _View) -> tuple[Text, ...]:
    """One limiter's cells, in ``COLUMNS`` order; ids and names are untrusted."""
    entry, marked = view
    flag, words = split_flag(entry.source)
    state = state_text(entry.is_active)
    if flag is not None:
        # Beside the state it qualifies, in the narrow columns (#27: at 80
        # columns "How we know" was cut to "last try FAI" beside the old state).
        state = Text.assemble(state, Text(f" · try {flag} (e)", style="bold"))
    return (
        Text(MARK if marked else " ", style="bold"),
        safe_id_text(entry.id),
        safe_text(entry.name or ""),
        state,
        Text(short_time(entry.known_at)),
        safe_text(words),
    )


#: The longest operator name a cell shows (the rest is cut with "…"): the
#: column stays narrow whatever a teammate calls themselves.
NAME_MAX: Final = 16


def local_time(known_at: str) -> str:
    """``HH:MM`` of a stored UTC time, in the local time zone (odd text: as is, cleaned)."""
    try:
        moment = datetime.fromisoformat(known_at.replace("Z", "+00:00"))
    except ValueError:
        return clean(known_at)
    return moment.astimezone().strftime("%H:%M")


def teammate_name(operator: str) -> str:
    """A teammate's name fit for a cell: cleaned, at most :data:`NAME_MAX` characters."""
    name = clean(operator)
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


def taught_words(source: str, known_at: str) -> str | None:
    """``from bob's change 03:12`` for a teammate-taught source, else None."""
    teammate = taught_by(source)
    if teammate is None:
        return None
    return f"from {teammate_name(teammate)}'s change {local_time(known_at)}"

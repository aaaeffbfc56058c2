"""The rate limiters of one project, as the inventory knows them.

The API cannot list rate limiters, so every row is an inventory entry: an id
from the team's inventory file, from a project the service returned, or
typed by the operator. Each row says how its state is known, because a state
learned from the service's answer and one we merely sent are not equally
trustworthy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from bottui.store.inventory_records import LimiterEntry, Source
from bottui.tui.widgets.safe import safe_text

#: Column key -> heading.
COLUMNS: Final = (
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
        return Text("?", style="bold yellow")
    return Text("ON", style="bold green") if is_active else Text("OFF", style="bold red")


def short_time(stamp: str) -> str:
    """``2026-11-21T03:00:00.000000Z`` -> ``2026-11-21 03:00:00`` (the stores' shape)."""
    if len(stamp) >= 19 and stamp[10] == "T":
        return f"{stamp[:10]} {stamp[11:19]}"
    return stamp


class LimiterTable(DataTable[Text]):
    """One row per known rate limiter of the current project; the cursor selects."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)
        self._entries: dict[str, LimiterEntry] = {}

    def on_mount(self) -> None:
        for key, heading in COLUMNS:
            self.add_column(heading, key=key)

    @property
    def entries(self) -> list[LimiterEntry]:
        """The rows shown, in table order."""
        return list(self._entries.values())

    def show(self, entries: Sequence[LimiterEntry], *, select: str | None = None) -> None:
        """Replace the rows; keep the cursor on the same limiter (or on ``select``)."""
        keep = select or (self.selected.id if self.selected else None)
        self.clear()
        self._entries = {entry.id: entry for entry in entries}
        for entry in entries:
            self.add_row(
                safe_text(entry.id),
                safe_text(entry.name or ""),
                state_text(entry.is_active),
                Text(short_time(entry.known_at)),
                safe_text(SOURCE_WORDS.get(entry.source, entry.source)),
                key=entry.id,
            )
        if keep is not None and keep in self._entries:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    @property
    def selected(self) -> LimiterEntry | None:
        """The limiter under the cursor, if any."""
        if not self._entries or self.row_count == 0:
            return None
        row = self.cursor_row
        if not 0 <= row < self.row_count:
            return None
        key = self.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
        return self._entries.get(key) if key is not None else None

"""The table of the Projects screen: one row per project, with its token states.

Rows are keyed by ``(account, project)``; every id and name goes in through
:func:`~bottui.tui.widgets.safe.safe_text`. Token cells say where the token
comes from (stored / missing / from environment), never what it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from bottui.ops.token_slots import Reading, Slot
from bottui.store.errors import KeyringUnavailable
from bottui.store.tokens import TokenState
from bottui.tui.widgets.safe import safe_text

#: A slot's cell while its state is being read.
CHECKING: Literal["checking"] = "checking"
#: What the table knows of a slot: a reading, "checking", or None (no base URL).
CellState = Reading | Literal["checking"] | None

CURRENT_MARK = "▶"


@dataclass(frozen=True)
class ProjectRow:
    """One project of the inventory."""

    account: str
    project: str
    name: str | None

    @property
    def key(self) -> tuple[str, str]:
        """``(account, project)``."""
        return (self.account, self.project)

    @property
    def personal_slot(self) -> Slot:
        """Where the account's personal access token belongs."""
        return Slot.personal(self.account)

    @property
    def project_slot(self) -> Slot:
        """Where the project's API token belongs."""
        return Slot.for_project(self.account, self.project)


def state_cell(state: CellState) -> Text:
    """The words (and a style) for a token cell."""
    if state is None:
        return Text("no base URL", style="dim")
    if state == CHECKING:
        return Text("checking…", style="dim italic")
    if isinstance(state, KeyringUnavailable):
        # Short, so the table fits 80 columns: the notice above says "Keyring unavailable".
        return Text("unavailable", style="bold red")
    if state is TokenState.STORED:
        return Text("stored", style="green")
    if state is TokenState.ENVIRONMENT:
        return Text("from environment", style="cyan")
    return Text("missing", style="bold yellow")


def _row_key(key: tuple[str, str]) -> str:
    # JSON: hostile ids (quotes, slashes, brackets) cannot make two keys collide.
    return json.dumps(list(key))


class ProjectTable(DataTable[Text]):
    """Projects with account, id, display name and the two token states."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Use project", id="projects.select"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self._rows: dict[str, ProjectRow] = {}

    def on_mount(self) -> None:
        self.add_column(Text(" "), key="mark")
        self.add_column(Text("Account"), key="account")
        self.add_column(Text("Project id"), key="project")
        self.add_column(Text("Name"), key="name")
        self.add_column(Text("Personal token"), key="personal")
        self.add_column(Text("Project token"), key="token")

    @property
    def highlighted(self) -> ProjectRow | None:
        """The project under the cursor, if any."""
        if not self._rows or self.cursor_row < 0 or self.cursor_row >= self.row_count:
            return None
        key = self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0)).row_key.value
        return self._rows.get(key or "")

    def row_for(self, key: str | None) -> ProjectRow | None:
        """The project of a DataTable row key."""
        return self._rows.get(key or "")

    def show(
        self,
        rows: Sequence[ProjectRow],
        *,
        current: tuple[str, str] | None,
        state: Callable[[Slot], CellState],
        focus: tuple[str, str] | None = None,
    ) -> None:
        """Replace the rows; keep the cursor on the same project (or on ``focus``)."""
        keep = focus or (self.highlighted.key if self.highlighted else None)
        self.clear()
        self._rows = {}
        for row in rows:
            key = _row_key(row.key)
            self._rows[key] = row
            is_current = row.key == current
            self.add_row(
                Text(CURRENT_MARK if is_current else " ", style="bold"),
                safe_text(row.account, style="bold" if is_current else ""),
                safe_text(row.project, style="bold" if is_current else ""),
                safe_text(row.name or "", style="bold" if is_current else ""),
                state_cell(state(row.personal_slot)),
                state_cell(state(row.project_slot)),
                key=key,
            )
        target = keep or current
        if target is not None:
            for index, row in enumerate(rows):
                if row.key == target:
                    self.move_cursor(row=index)
                    break

    def update_states(self, state: Callable[[Slot], CellState]) -> None:
        """Redraw the token cells only (the cursor stays where it is)."""
        for key, row in self._rows.items():
            personal = state_cell(state(row.personal_slot))
            self.update_cell(key, "personal", personal, update_width=True)
            self.update_cell(key, "token", state_cell(state(row.project_slot)), update_width=True)

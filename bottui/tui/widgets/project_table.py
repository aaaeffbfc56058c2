"""The table of the Projects screen: one row per project, with its token states.

Rows are keyed by ``(account, project)``; every id and name goes in through
:func:`~bottui.tui.widgets.untrusted_text.safe_text`. Token cells say where the token
comes from (stored / missing / from environment), never what it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import ClassVar, Literal

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.content import Content

from bottui.ops.token_slots import Reading, Slot
from bottui.store.errors import KeyringUnavailable
from bottui.store.keyring_tokens import TokenState
from bottui.store.token_sources import EnvTokenAmbiguous
from bottui.tui.perf.incremental_table import IncrementalTable
from bottui.tui.ui_rules import tone
from bottui.tui.widgets.untrusted_text import join, safe, safe_id, safe_id_text, safe_text

#: A slot's cell while its state is being read.
CHECKING: Literal["checking"] = "checking"
#: What the table knows of a slot: a reading, "checking", or None (no base URL).
CellState = Reading | Literal["checking"] | None

CURRENT_MARK = "▶"


@lru_cache(maxsize=1024)
def _personal_slot(account: str) -> Slot:
    # One per account, shared by all its projects' rows.
    return Slot.personal(account)


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

    @cached_property
    def row_key(self) -> str:
        """The table's key of this project's row."""
        return _row_key(self.key)

    # Cached: the table looks both slots up for every row on every update, and
    # a Slot costs more to make than the lookup itself.
    @cached_property
    def personal_slot(self) -> Slot:
        """Where the account's personal access token belongs."""
        return _personal_slot(self.account)

    @cached_property
    def project_slot(self) -> Slot:
        """Where the project's API token belongs."""
        return Slot.for_project(self.account, self.project)


def state_cell(state: CellState) -> Text:
    """The words (and a style) for a token cell."""
    if state is None:
        return Text("no base URL", style=tone("italic", "dim"))
    if state == CHECKING:
        return Text("checking…", style=tone("italic", "dim"))
    if isinstance(state, EnvTokenAmbiguous):
        # Two environment variables claim this token: refused, never guessed.
        return Text("env: ambiguous", style=tone("bold", "red"))
    if isinstance(state, KeyringUnavailable):
        # Short, so the table fits 80 columns: the notice above says "Keyring unavailable".
        return Text("unavailable", style=tone("bold", "red"))
    if state is TokenState.STORED:
        return Text("stored", style=tone("", "green"))
    if state is TokenState.ENVIRONMENT:
        return Text("from environment", style=tone("", "cyan"))
    if isinstance(state, TokenState) and state.from_environment:
        # BOTTUI_API_KEY: sent for this project, but nothing says it is this project's.
        return Text("env, not tied", style=tone("italic", "yellow"))
    return Text("missing", style=tone("bold underline", "yellow"))


#: What a project's cells are made from: the project, whether it is the
#: current one, and the states of its personal and project tokens.
_View = tuple[ProjectRow, bool, CellState, CellState]


def _row_key(key: tuple[str, str]) -> str:
    # The account's length first: hostile ids (slashes, colons, digits) cannot
    # make two keys collide, at a tenth of the cost of JSON for 5,000 rows.
    account, project = key
    return f"{len(account)}:{account}/{project}"


class ProjectTable(IncrementalTable[ProjectRow, _View]):
    """Projects with account, id, display name and the two token states."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Use project", id="projects.select"),
    ]
    COLUMNS = (
        ("mark", " "),
        ("account", "Account"),
        ("project", "Project id"),
        ("name", "Name"),
        ("personal", "Personal token"),
        ("token", "Project token"),
    )
    ZEBRA_STRIPES = False

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: The current project as last shown (its row is marked and bold).
        self._current: tuple[str, str] | None = None

    @property
    def highlighted(self) -> ProjectRow | None:
        """The project under the cursor, if any (the table's ``selected``)."""
        return self.selected

    def row_for(self, key: str | None) -> ProjectRow | None:
        """The project of a DataTable row key."""
        return self._entries.get(key or "")

    def show(
        self,
        rows: Sequence[ProjectRow],
        *,
        current: tuple[str, str] | None,
        state: Callable[[Slot], CellState],
        focus: tuple[str, str] | None = None,
    ) -> None:
        """Show the rows; the cursor goes to ``focus`` if given, else stays on its project.

        With neither (nothing was highlighted yet), it goes to the ``current`` project.
        The same projects shown again are updated in place (see ``_update_rows``).
        """
        highlighted = self.highlighted
        keep = focus or (highlighted.key if highlighted else None) or current
        self._current = current
        self._update_rows(
            ((row.row_key, row) for row in rows),
            _viewer(current, state),
            _cells,
            select=None if keep is None else _row_key(keep),
        )

    def set_current(
        self,
        current: tuple[str, str] | None,
        *,
        state: Callable[[Slot], CellState],
        focus: tuple[str, str] | None = None,
    ) -> None:
        """The same rows, another current project: its row and the last one's alone are redone."""
        keys = [_row_key(key) for key in {self._current, current} if key is not None]
        self._current = current
        self._refresh_rows(keys, _viewer(current, state))
        if focus is not None and _row_key(focus) in self._entries:
            self._select(_row_key(focus))

    def update_states(self, state: Callable[[Slot], CellState]) -> None:
        """Redraw the token cells that changed (the cursor stays where it is)."""
        # Every row, also those a filter hides: their states are shown when it lets them in.
        self._update_rows(self._source, _viewer(self._current, state), _cells)


def _viewer(
    current: tuple[str, str] | None, state: Callable[[Slot], CellState]
) -> Callable[[ProjectRow], _View]:
    """What a project's cells show, given the current project and the token states."""

    def view(row: ProjectRow) -> _View:
        return (row, row.key == current, state(row.personal_slot), state(row.project_slot))

    return view


def ids_line(account: str, project: str, name: str | None = None) -> str:
    """``acme / shop-prod (Shop)``, for a toast (cleaned by the caller)."""
    return f"{account} / {project}" + (f" ({name})" if name else "")


def project_detail(
    row: ProjectRow, *, current: bool, state: Callable[[Slot], CellState]
) -> Content:
    """The two lines under the table about the highlighted project (ids are untrusted)."""
    marker = "current: " if current else ""
    first = join(marker, safe_id(row.account), " / ", safe_id(row.project))
    if row.name:
        first = join(first, " · ", safe(row.name))
    words = {None: "no base URL", CHECKING: "checking…"}

    def said(slot: Slot) -> str:
        value = state(slot)
        if isinstance(value, KeyringUnavailable):
            return "keyring unavailable"
        if isinstance(value, TokenState):
            return value.label
        return words[value]

    second = Content(
        f"personal token: {said(row.personal_slot)} (p) · "
        f"project token: {said(row.project_slot)} (t)"
    )
    return join(first, "\n", second)


def _cells(view: _View) -> list[Text]:
    """One project's cells, in ``COLUMNS`` order; ids and names are untrusted."""
    row, is_current, personal, project = view
    style = "bold" if is_current else ""
    return [
        Text(CURRENT_MARK if is_current else " ", style="bold"),
        safe_id_text(row.account, style=style),
        safe_id_text(row.project, style=style),
        safe_text(row.name or "", style=style),
        state_cell(personal),
        state_cell(project),
    ]

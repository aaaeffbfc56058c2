"""The Projects screen: the inventory's projects, their token states, the current project.

One row per project: account, project id, display name, and where its two
tokens come from (personal access token of the account, project API token
of the project): stored / missing / from environment, never a value. Enter
makes the highlighted project current for every screen. Projects are
added, renamed and removed here through :mod:`bottui.ops.inventory_edits`
(the inventory is local: nothing is sent to the API), and tokens are
stored through a masked field straight into the keyring.

Its reads of the inventory: unchanged, a first page, the rest, or all. The
screen may list thousands of projects (issue #12). A read first asks the
inventory's marker (:func:`~bottui.ops.inventory_reads.inventory_version`):
the one of the rows shown means nothing changed, and nothing is read. A
screen with no rows yet reads a first page, shown before the rest is read;
a screen with rows reads them all again, to update them in place.

Token states are read in a worker, in a daemon thread: the keyring may
block for seconds or be missing altogether; the table says "checking…"
meanwhile and "keyring unavailable" (with a notice and the remedies) when
it cannot be used.

The first run: with nothing configured, a welcome offers two ways in.
Adding a project with no base URL yet first asks for a profile (every
option: :class:`~bottui.tui.screens.profile_switcher.ProfileForm`, whose checks
are those of :mod:`bottui.ops.profiles`); the names taken are read meanwhile;
:func:`bottui.ops.profiles.create_first_profile` saves it (written to
``config.toml`` on the store executor, never on the event loop, and made
current), then the project is asked for. Starting the demo leaves the app with
:data:`~bottui.tui.services.START_DEMO` (the tui layer may not import
:mod:`bottui.demo`; the CLI starts it).

**The table** (:class:`ProjectTable`): one row per project, with its token states.

Rows are keyed by ``(account, project)``; every id and name goes in through
:func:`~bottui.tui.widgets.untrusted_text.safe_text`. Token cells say where the token
comes from (stored / missing / from environment), never what it is.

**The framed notices**: the first-run welcome and the unusable keyring.

:class:`Welcome`, on a first run with nothing configured, offers the two ways
in: (a) add a project and its tokens (asking first for the API's base URL
when there is none), or (b) start the demo against the built-in sandbox.

:class:`KeyringNotice` is shown while the keyring cannot be used. It says
what failed (the :class:`~bottui.store.store_errors.KeyringUnavailable` title and
reason) and what to do about it: its ``details`` carry the remedies
(environment variables, a Secret Service session, keyring's configuration).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import ClassVar, Literal, NamedTuple

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, DataTable, Static

from bottui.ops import inventory_edits, profiles
from bottui.ops.inventory_reads import first_projects, inventory_version, read_all_projects
from bottui.ops.session import Session, Settings
from bottui.ops.token_slots import Reading, Slot, read_states
from bottui.plaintext import clean
from bottui.store.inventory.inventory_records import ProjectEntry
from bottui.store.keyring_tokens import TokenState
from bottui.store.paging import Cursor
from bottui.store.store_errors import KeyringUnavailable
from bottui.store.token_sources import EnvTokenAmbiguous
from bottui.tui.error_report import EXPECTED_ERRORS, error_line
from bottui.tui.perf.incremental_table import IncrementalTable
from bottui.tui.screens.base import FilterableScreen, on_answer, say
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.profile_switcher import ProfileForm
from bottui.tui.screens.project_dialogs import ProjectDraft, ProjectForm, ask_token, tell_checked
from bottui.tui.services import START_DEMO
from bottui.tui.ui_rules import show_widget, tone
from bottui.tui.widgets.untrusted_text import join, safe, safe_id, safe_id_text, safe_text


class Welcome(Vertical):
    """The welcome panel, with an "Add a project" and a "Start the demo" button."""

    DEFAULT_CSS = """
    Welcome { height: auto; border: round $primary; padding: 0 1; margin: 1 0 0 0; }
    Welcome > #welcome-title { text-style: bold; }
    Welcome > Horizontal { height: auto; margin: 1 0 0 0; }
    Welcome Button { margin-right: 2; }
    Welcome .welcome-way { margin: 1 0 0 0; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Content("Welcome to bottui"), id="welcome-title")
        yield Static("", id="welcome-where")
        yield Static(
            Content(
                "a  Add a project: its account id and project id, then store its "
                "tokens in the keyring (t project API token, p personal access token)."
            ),
            classes="welcome-way",
            id="welcome-add-text",
        )
        yield Static(
            Content(
                "d  Start the demo: every screen against a built-in sandbox, with demo "
                "data and tokens; nothing of yours is read or written."
            ),
            classes="welcome-way",
            id="welcome-demo-text",
        )
        with Horizontal():
            yield Button("Add a project", id="welcome-add", variant="primary")
            yield Button("Start the demo", id="welcome-demo")

    def configure(self, *, profile: str | None, base_url: str | None, demo: bool = False) -> None:
        """Say what is configured: nothing, or a profile with no projects yet.

        Under ``bottui demo`` the demo is not offered again.
        """
        self.query_one("#welcome-demo-text").display = not demo
        self.query_one("#welcome-demo").display = not demo
        where = self.query_one("#welcome-where", Static)
        if base_url is None:
            where.update(
                Content(
                    "Nothing is configured yet. Adding a project first asks for the API's "
                    "base URL, saved as a profile."
                )
            )
        else:
            where.update(
                join(
                    "No projects yet in profile ",
                    safe(profile or "(none)"),
                    " (",
                    safe(base_url),
                    ").",
                )
            )


class KeyringNotice(Vertical):
    """A framed notice; hidden while the keyring works. Never takes the focus."""

    DEFAULT_CSS = """
    KeyringNotice {
        height: auto; border: round $error; padding: 0 1;
        border-title-color: $error; border-title-style: bold;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="keyring-notice-text")

    def on_mount(self) -> None:
        self.border_title = "Keyring unavailable"
        self.display = False

    def show(self, error: KeyringUnavailable | None) -> None:
        """Show ``error`` and its remedies; ``None`` hides the notice."""
        self.display = error is not None
        if error is None:
            return
        text = error_line("", error, sep=" (k checks again).\n", keep_newlines=True)
        self.query_one("#keyring-notice-text", Static).update(text)


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
        highlighted = self.selected
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


PROBLEM = "The inventory cannot be read: "


class ProjectsRead(NamedTuple):
    """What a read of the inventory found."""

    #: The inventory's marker before the read (None: unknown).
    version: Hashable | None
    #: The rows read; None: the inventory has not changed since the rows shown.
    rows: list[ProjectRow] | None
    problem: Content | None
    #: Where the rest begins when only a first page was read.
    after: Cursor | None


def _rows(entries: tuple[ProjectEntry, ...] | list[ProjectEntry]) -> list[ProjectRow]:
    return [ProjectRow(e.account, e.project, e.name) for e in entries]


async def read_projects(session: Session, *, whole: bool, shown: Hashable | None) -> ProjectsRead:
    """Nothing if the marker is ``shown``; else every project if ``whole``, or a first page."""
    try:
        version = await inventory_version(session)
        if version is not None and version == shown:
            return ProjectsRead(version, None, None, None)
        if whole:
            return ProjectsRead(version, _rows(await read_all_projects(session)), None, None)
        page = await first_projects(session)
    except EXPECTED_ERRORS as exc:
        return ProjectsRead(None, [], error_line(PROBLEM, exc), None)
    return ProjectsRead(version, _rows(page.items), None, page.next)


async def read_rest(session: Session, first: ProjectsRead) -> ProjectsRead:
    """The first page's rows and the rest after them (its marker: the first page's)."""
    rows = first.rows or []
    try:
        rest = await read_all_projects(session, after=first.after)
    except EXPECTED_ERRORS as exc:
        return ProjectsRead(None, rows, error_line(PROBLEM, exc), None)
    return ProjectsRead(first.version, rows + _rows(rest), None, None)


class ProjectsScreen(FilterableScreen):
    """Accounts and projects of the inventory, their token states, the current project."""

    SCREEN_TITLE: ClassVar[str] = "Projects"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", id="projects.add"),
        Binding("r", "edit", "Edit name", id="projects.edit"),
        Binding("x,delete", "remove", "Remove", id="projects.remove"),
        Binding("t", "project_token", "Project token", id="projects.project_token"),
        Binding("p", "personal_token", "Personal token", id="projects.personal_token"),
        Binding("k", "recheck", "Check tokens again", show=False, id="projects.recheck"),
        Binding("d", "demo", "Start the demo (first run)", show=False, id="projects.demo"),
    ]
    #: Row actions the palette asks a project for (bottui.tui.key_registry).
    TARGETS: ClassVar[dict[str, type]] = dict.fromkeys(
        ("edit", "remove", "project_token", "personal_token"), ProjectTable
    )

    @dataclass
    class TokensRead(Message):
        """Token states read for ``base_url``."""

        base_url: str
        readings: dict[Slot, Reading]
        #: The version of each slot when the read began (see ``_versions``).
        versions: dict[Slot, int]

    @dataclass
    class ProjectSaved(Message):
        """A project was added (``added``) or renamed in the inventory."""

        draft: ProjectDraft
        added: bool

    @dataclass
    class ProjectRemoved(Message):
        """A project was removed from the inventory."""

        account: str
        project: str

    @dataclass
    class ProfileSaved(Message):
        """The first profile was saved; ``settings`` are the session's new settings."""

        settings: Settings

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[ProjectRow] = []
        self._states: dict[Slot, CellState] = {}
        # Bumped whenever a slot's state is set or a read of it starts: a read
        # that finishes after a newer one began, or after the operator stored
        # a token, must not overwrite the newer state.
        self._versions: dict[Slot, int] = {}
        self._states_base: str | None = None
        # Where the cursor goes once a read shows its row (a project just added or renamed),
        # with the table's operator moves then: a read begun before the save lacks it.
        self._focus: tuple[tuple[str, str], int] | None = None
        # Where the cursor goes once a first page's rest is shown, unless moved since (moves).
        self._focus_later: tuple[tuple[str, str], int] | None = None
        #: Whether the last read of the inventory succeeded (``a`` adds only then).
        self._inventory_ok = True
        #: The inventory's marker when the rows shown were read (all of them, without
        #: a problem): the same marker again, they are not read again.
        self._shown_version: Hashable | None = None

    # -- layout ------------------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        yield Static(Content("Projects"), classes="screen-title", id="projects-title")
        yield KeyringNotice(id="keyring-notice")
        yield Static("", classes="field-error", id="projects-problem")
        yield Welcome(id="welcome")
        yield ProjectTable(id="projects-table")
        yield Static("", classes="hint", id="projects-detail")

    @property
    def table(self) -> ProjectTable:
        """The projects table."""
        return self.query_one(ProjectTable)

    # -- data ------------------------------------------------------------------------

    def refresh_data(self) -> None:
        """Re-read the inventory (unless unchanged); read the token states not known yet.

        With no rows shown yet, a first page is shown before the rest is read;
        rows shown are read again whole and updated in place.
        """
        if not self.is_mounted:
            return
        session, whole, shown = self.services.session, bool(self._rows), self._shown_version

        async def read() -> ProjectsRead:
            return await read_projects(session, whole=whole, shown=shown)

        self.load(read, self._show_read, group="projects")

    def _show_read(self, found: ProjectsRead) -> None:
        if found.rows is None:
            self._show_same()
            return
        focus = (self._focus[0] if self._focus else None) or self.services.current
        self._show_rows(found.rows, found.problem, complete=found.after is None)
        if found.after is None:
            self._shown_version = found.version
            return
        session = self.services.session
        # The cursor goes to the current project (or the one just added) once its
        # row is there, unless the operator has moved it meanwhile.
        highlighted = self.table.selected
        placed = None if highlighted is None else highlighted.key
        self._focus_later = None if focus is None or placed == focus else (focus, self.table.moves)

        async def rest() -> ProjectsRead:
            return await read_rest(session, found)

        # Once the first page is drawn: the read's thread would compete with it for the GIL.
        drawn = self.table.call_after_drawn
        self.load_after_refresh(rest, self._show_read, group="projects", after=drawn)

    def _show_same(self) -> None:
        """The inventory did not change: the rows stay; the current project may have."""
        if self.services.session.settings.base_url != self._states_base:
            self._show_rows(self._rows, None)
            return
        focus = self._take_focus(self._rows)
        self.table.set_current(self.services.current, state=self._cell, focus=focus)
        self._show_detail()
        self.refresh_bindings()

    def _show_rows(
        self, rows: list[ProjectRow], problem: Content | None, *, complete: bool = True
    ) -> None:
        """Show the rows read (or the problem reading them); ``complete``: all of them."""
        session = self.services.session
        self._inventory_ok = problem is None
        if problem is not None or not complete:
            self._shown_version = None
        # The same projects as last time keep their row objects (and the slots
        # those cache): thousands of rows are compared and looked up per visit.
        known = {row: row for row in self._rows}
        self._rows = rows = [known.get(row, row) for row in rows]
        base = session.settings.base_url
        if base != self._states_base:
            self._states, self._states_base = {}, base
        say(self.query_one("#projects-problem", Static), problem)

        welcome = self.query_one(Welcome)
        welcome.display = not rows and problem is None
        welcome.configure(
            profile=session.settings.profile_name, base_url=base, demo=self.services.demo
        )
        table = self.table
        show_widget(table, bool(rows))
        focus = self._take_focus(rows)
        if self._focus_later is not None:
            (later, moves), self._focus_later = self._focus_later, None
            if focus is None and table.moves == moves:  # any move, even back, wins
                focus = later
        table.show(rows, current=self.services.current, state=self._cell, focus=focus)
        self._show_title(complete=complete)
        self._after_states(table=False)  # the table was just shown with these states
        # Reading thousands of token states must not hold back the first frame;
        # meanwhile the cells of unknown slots say "checking…" already.
        self.call_after_refresh(self._check_tokens)
        if welcome.display:
            if not isinstance(self.focused, Button):
                self.query_one("#welcome-add", Button).focus()
        elif rows and (self.focused is None or isinstance(self.focused, Button)):
            table.focus()

    def _take_focus(self, shown: Sequence[ProjectRow]) -> tuple[str, str] | None:
        """The project the cursor goes to now, if its row is among those ``shown``.

        Kept for a later read while its row is not there yet; dropped once the
        operator has moved the cursor since it was set.
        """
        if self._focus is None:
            return None
        key, moves = self._focus
        moved = self.table.moves != moves
        if not moved and all(row.key != key for row in shown):
            return None  # its row is not read yet
        self._focus = None
        return None if moved else key

    def _show_title(self, *, complete: bool = True) -> None:
        accounts = len({row.account for row in self._rows})
        n = len(self._rows)
        text = "Projects"
        if n and not complete:
            text += " · reading the rest of the inventory…"
        elif n:
            text += (
                f" · {n} project{'s' if n != 1 else ''} in "
                f"{accounts} account{'s' if accounts != 1 else ''}"
                " · Enter makes the highlighted one current"
            )
        self.query_one("#projects-title", Static).update(Content(text))

    def _cell(self, slot: Slot) -> CellState:
        if self._states_base is None:
            return None
        return self._states.get(slot, CHECKING)

    def _check_tokens(self, *, again: bool = False) -> None:
        """Read the states of the slots not known yet (``again``: of every slot)."""
        if self._states_base is None or not self._rows:
            return
        base: str = self._states_base
        wanted = dict.fromkeys(
            slot for row in self._rows for slot in (row.personal_slot, row.project_slot)
        )
        todo = [slot for slot in wanted if again or slot not in self._states]
        if not todo:
            return
        for slot in todo:
            self._states[slot] = CHECKING
            self._versions[slot] = self._versions.get(slot, 0) + 1
        versions = {slot: self._versions[slot] for slot in todo}
        self._read_states(base, todo, versions)

    @work(group="tokens", exit_on_error=False)
    async def _read_states(
        self, base: str, todo: list[Slot], versions: dict[Slot, int]
    ) -> dict[Slot, Reading]:
        """Read the token states of ``todo`` (off the loop); :class:`TokensRead` shows them.

        Returned too: ``k`` says what was found when this worker ends (:func:`tell_checked`).
        """
        with self.sending("checking tokens"):
            readings = await read_states(self.services.session.tokens, base, todo)
        self.post_message(self.TokensRead(base, readings, versions))
        return readings

    @on_answer(TokensRead)
    def _tokens_read(self, message: TokensRead) -> None:
        if message.base_url != self._states_base:
            return  # read for a base URL this screen no longer shows
        for slot, reading in message.readings.items():
            if self._versions.get(slot) == message.versions.get(slot):
                self._states[slot] = reading
        self._after_states()

    def _after_states(self, *, table: bool = True) -> None:
        """Redraw the token cells (unless not ``table``), the keyring notice, the detail line."""
        if self._rows and table:
            self.table.update_states(self._cell)
        errors = [s for s in self._states.values() if isinstance(s, KeyringUnavailable)]
        self.query_one(KeyringNotice).show(errors[-1] if errors else None)
        self._show_detail()
        self.refresh_bindings()

    def _show_detail(self) -> None:
        row = self.table.selected if self._rows else None
        current = row is not None and row.key == self.services.current
        words = None if row is None else project_detail(row, current=current, state=self._cell)
        say(self.query_one("#projects-detail", Static), words)

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_detail()
        self.refresh_bindings()

    # -- choosing ----------------------------------------------------------------------

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        row = self.table.row_for(event.row_key.value)
        if row is None:
            return
        self.services.choose_project(row.account, row.project)
        self.notify(
            clean(f"Current project: {ids_line(row.account, row.project, row.name)}"),
            title="Project",
            markup=False,
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False: not a key of this state (hidden from the key bar and help);
        # None: listed, but does nothing right now.
        if action in ("edit", "remove", "project_token", "personal_token"):
            if not self._rows:
                return False
            return True if self.table.selected else None
        if action == "demo":
            return self.query_one(Welcome).display and not self.services.demo
        if action == "add":
            return True if self._inventory_ok else None
        if action == "recheck":
            return bool(self._rows)
        return True

    # -- adding, editing, removing -------------------------------------------------------

    @on(Button.Pressed, "#welcome-add")
    def action_add(self) -> None:
        """Add a project (asking for the base URL first when there is none)."""
        if self.services.session.settings.base_url is None:
            self._ask_first_profile()
        else:
            self._ask_project()

    def _ask_project(self) -> None:
        settings = self.services.session.settings
        current = self.services.current
        account = current[0] if current else (settings.account or "")
        existing = [row.key for row in self._rows]

        self._write_project(ProjectForm(existing=existing, account=account), True)

    def action_edit(self) -> None:
        """Edit the display name of the highlighted project."""
        row = self.table.selected
        if row is None:
            return
        self._write_project(ProjectForm(existing=[], edit=(row.account, row.project, row.name)))

    @work(group="inventory", exit_on_error=False)
    async def _write_project(self, form: ProjectForm, added: bool = False) -> None:
        """Add the project the form returns to the inventory, or rename it."""
        draft = await self.services.ask(form)
        if draft is None:
            return
        edit = inventory_edits.add_project if added else inventory_edits.rename_project
        with self.sending("saving the project"):
            await edit(self.services.session, draft.account, draft.project, draft.name)
        self.post_message(self.ProjectSaved(draft, added))

    @on_answer(ProjectSaved)
    def _project_saved(self, message: ProjectSaved) -> None:
        draft = message.draft
        self._focus = ((draft.account, draft.project), self.table.moves)
        verb = "Added" if message.added else "Renamed"
        self.notify(
            clean(f"{verb}: {ids_line(draft.account, draft.project, draft.name)}"),
            title="Inventory",
            markup=False,
        )
        if message.added and self.services.current is None:
            # The first project becomes current: the other screens have something to show.
            self.services.choose_project(draft.account, draft.project)
        self.services.inventory_changed()

    def action_remove(self) -> None:
        """Remove the highlighted project from the inventory (asks first)."""
        row = self.table.selected
        if row is None:
            return
        profile = self.services.session.settings.inventory_scope
        body = join(
            safe_id(row.account),
            " / ",
            safe_id(row.project),
            join(" · ", safe(row.name)) if row.name else "",
            "\n\nRemove this project, its rate limiters and its dimensions from the "
            "inventory of profile ",
            safe(profile),
            "? Nothing is sent to the API. Its tokens stay in the keyring (t and p delete them).",
        )
        self._remove_project(
            row.account, row.project, ConfirmDialog("Remove project?", body, "Remove")
        )

    @work(group="inventory", exit_on_error=False)
    async def _remove_project(self, account: str, project: str, dialog: ConfirmDialog) -> None:
        """Remove the project from the inventory once the operator said so."""
        if not await self.services.ask(dialog):
            return
        with self.sending("removing the project"):
            await inventory_edits.forget_project(self.services.session, account, project)
        self.post_message(self.ProjectRemoved(account, project))

    @on_answer(ProjectRemoved)
    def _project_removed(self, message: ProjectRemoved) -> None:
        self.notify(
            clean(f"Removed from the inventory: {ids_line(message.account, message.project)}"),
            title="Inventory",
            markup=False,
        )
        if self.services.current == (message.account, message.project):
            self.services.choose_project(None, None)
        self.services.inventory_changed()

    # -- the first profile ---------------------------------------------------------------

    def _ask_first_profile(self) -> None:
        """Ask for the first profile (:meth:`_save_first_profile`), then for the project."""
        form = ProfileForm(first=True)
        self._save_first_profile(form)
        # The form opens at once; the names taken are read off the loop and
        # reach it a moment later. A damaged config.toml closes it and is reported.
        self._tell_names_taken(form)

    @work(name="config-read", group="config-read", exit_on_error=False)
    async def _tell_names_taken(self, form: ProfileForm) -> None:
        try:
            config = await profiles.read_config(self.services.session.config_store)
        except EXPECTED_ERRORS as exc:
            self.services.flush_warnings()
            if form.is_attached:
                # Once it has mounted (it may be mounting still): through its own queue.
                form.call_later(form.action_close)
            self.services.report(exc)
            return
        self.services.flush_warnings()
        form.know_existing(list(config.profiles))

    @work(group="config", exit_on_error=False)
    async def _save_first_profile(self, form: ProfileForm) -> None:
        """Save the profile the form returns (on the store executor, made current), then ask
        the project."""
        profile = await self.services.ask(form)
        if profile is None:
            return
        with self.sending("saving the profile"):
            settings = await profiles.create_first_profile(self.services.session, profile)
        self.post_message(self.ProfileSaved(settings))

    @on_answer(ProfileSaved)
    def _profile_saved(self, message: ProfileSaved) -> None:
        settings = message.settings
        self.services.session.update_settings(settings)
        self.notify(
            clean(
                f"Profile {settings.profile_name} saved ({settings.base_url}) "
                "and made current. Now the project:"
            ),
            title="Profile",
            markup=False,
        )
        self.services.inventory_changed()
        self._ask_project()

    # -- tokens --------------------------------------------------------------------------

    def action_project_token(self) -> None:
        """Set, replace or delete the project API token of the highlighted project."""
        if (row := self.table.selected) is not None:
            self._ask_token(row.project_slot)

    def action_personal_token(self) -> None:
        """Set, replace or delete the personal access token of the highlighted account."""
        if (row := self.table.selected) is not None:
            self._ask_token(row.personal_slot)

    def _ask_token(self, slot: Slot) -> None:
        def changed(base: str, state: TokenState) -> None:
            if self._states_base != base:
                return
            self._states[slot] = state
            self._versions[slot] = self._versions.get(slot, 0) + 1
            self._after_states()
            where = slot.account if slot.project is None else ids_line(slot.account, slot.project)
            self.notify(
                clean(f"The {slot.label} of {where} is now: {state.label}"),
                title="Token",
                markup=False,
            )

        reading = self._states.get(slot)
        known = reading if isinstance(reading, TokenState | KeyringUnavailable) else None
        ask_token(self, slot, known, changed)

    def action_recheck(self) -> None:
        """Read every token state again (after unlocking the keyring, say); say what it found."""
        self._check_tokens(again=True)
        tell_checked(self, redraw=self._after_states)  # "checking…" now, the findings after

    @on(Button.Pressed, "#welcome-demo")
    def action_demo(self) -> None:
        """Leave and start ``bottui demo`` (first run only)."""
        if not self.services.demo:  # never from the demo itself
            self.app.exit(START_DEMO)

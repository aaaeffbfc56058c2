"""The Thresholds screen: the current project's risk dimensions and their thresholds.

The service cannot list dimensions or read thresholds back, so the table
shows what the local inventory knows (the last values sent, imported or
entered) and says where each came from. ``enter`` edits a dimension (name,
block and challenge, each a slider with an exact input), ``a`` adds one by
id and name, ``x`` forgets one locally (both through
:mod:`bottui.ops.inventory_edits`), ``s`` sets the project's threshold range
and direction (the spec fixes neither), saved in the profile by
:func:`bottui.ops.profiles.save_project_settings`, off the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static

from bottui.api.client import ThresholdUpdate
from bottui.api.models import DimensionThresholds
from bottui.ops import inventory_edits, mutations
from bottui.ops.inventory_reads import read_all_dimensions
from bottui.ops.mutations import Applied
from bottui.ops.planning import PlannedChange, ThresholdsTarget
from bottui.ops.profiles import save_project_settings
from bottui.ops.thresholds import in_range, never_reached
from bottui.plaintext import clean
from bottui.store.config.config_model import ProjectSettings
from bottui.store.inventory.inventory_records import DimensionEntry
from bottui.store.utc import system_clock
from bottui.tui.error_report import EXPECTED_ERRORS, Attempt, Failure
from bottui.tui.screens.base import FilterableScreen, on_answer, say
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.threshold_dialogs import (
    UNKNOWN,
    AddDimensionDialog,
    ThresholdEditor,
    ThresholdSettingsDialog,
    direction_words,
)
from bottui.tui.ui_rules import show_widget
from bottui.tui.widgets.entry_table import EntryTable
from bottui.tui.widgets.limiter_table import taught_words
from bottui.tui.widgets.result_panels import AttemptPanel
from bottui.tui.widgets.untrusted_text import join, safe, safe_id, safe_id_text, safe_text

_COLUMNS = (
    ("dimension", "Dimension"),
    ("name", "Name"),
    ("block", "Block"),
    ("challenge", "Challenge"),
    ("check", "Check"),
    ("known_at", "Known at"),
    ("source", "Source"),
)


@dataclass
class ThresholdsFailed(Message):
    """A threshold update failed, or its outcome is unknown (the error log has it whole)."""

    project: tuple[str, str]
    where: str
    failure: Failure
    at: str


@dataclass
class ThresholdsSet(Message):
    """The service accepted a threshold update (the inventory learned it)."""

    dimension_id: str
    thresholds: DimensionThresholds
    applied: Applied[Any]
    #: (account, project) of the change.
    project: tuple[str, str] | None = None


def _since(sent: DimensionThresholds, entry: DimensionEntry | None) -> str | None:
    """The thresholds the row shows now, in words, when they differ from ``sent``; else None."""
    if entry is None or entry.block is None or entry.challenge is None:
        return None

    def same(a: str, b: str) -> bool:
        try:
            return Decimal(a) == Decimal(b)
        except ArithmeticError:
            return a == b

    if (
        same(entry.block, sent.block)
        and same(entry.challenge, sent.challenge)
        and (entry.name is None or entry.name == sent.name)
    ):
        return None
    return clean(f"block {entry.block}, challenge {entry.challenge}")


def thresholds_words(sent: DimensionThresholds) -> str:
    """``name 'Bot score', block 0.8, challenge 0.5``: raw, cleaned where it is shown."""
    return f"name {sent.name!r}, block {sent.block}, challenge {sent.challenge}"


def check_words(entry: DimensionEntry, settings: ProjectSettings) -> str:
    """What is wrong with the known thresholds, in a few words ("" when nothing)."""
    if entry.block is None or entry.challenge is None:
        return "thresholds unknown"
    try:
        Decimal(entry.block), Decimal(entry.challenge)
    except ArithmeticError:
        return "not a number"
    if not (in_range(entry.block, settings) and in_range(entry.challenge, settings)):
        return "out of range"
    if never_reached(entry.block, entry.challenge, settings.higher_is_riskier):
        return "challenge never reached"
    return ""


def when(known_at: str) -> str:
    """An inventory timestamp to the minute, in UTC ("" stays ""; odd text as is)."""
    try:
        moment = datetime.fromisoformat(known_at.replace("Z", "+00:00"))
    except ValueError:
        return known_at
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


UNREADABLE = (
    "The inventory cannot be opened, so no dimension is known. Press a to add one for this session."
)
NO_DIMENSION = (
    "No dimension known for this project. Press a to add one "
    "(its id and name as configured in the service)."
)


class DimensionTable(EntryTable[DimensionEntry]):
    """The dimensions, one row each; enter edits the row under the cursor."""

    COLUMNS = _COLUMNS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Edit thresholds", id="thresholds.edit"),
    ]

    def show(self, entries: list[DimensionEntry], settings: ProjectSettings) -> None:
        """Replace the rows; the cursor stays on the same dimension."""

        def cells(entry: DimensionEntry) -> list[Text]:
            return [
                safe_id_text(entry.id),
                safe_text(entry.name) if entry.name is not None else Text(UNKNOWN),
                safe_text(entry.block) if entry.block is not None else Text(UNKNOWN),
                safe_text(entry.challenge) if entry.challenge is not None else Text(UNKNOWN),
                Text(check_words(entry, settings)),
                safe_text(when(entry.known_at)),
                safe_text(taught_words(entry.source, entry.known_at) or entry.source),
            ]

        self._replace_rows((entry.id, entry, cells(entry)) for entry in entries)


class ThresholdsScreen(FilterableScreen):
    """The current project's dimensions: edit, add, forget, range and direction."""

    SCREEN_TITLE: ClassVar[str] = "Thresholds"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add dimension", id="thresholds.add"),
        Binding("x", "forget", "Forget", id="thresholds.forget"),
        Binding("s", "settings", "Range/direction", id="thresholds.settings"),
    ]
    #: Row actions: the palette asks which dimension (see bottui.tui.key_registry).
    TARGETS: ClassVar[dict[str, type]] = {"forget": DimensionTable}

    def __init__(self) -> None:
        super().__init__()
        #: Thresholds confirmed but not accepted (a failure), by (account, project, id).
        self._unsent: dict[tuple[str, str, str], DimensionThresholds] = {}
        #: Each project's latest attempt, shown in the result panel while it is current.
        self._latest: dict[tuple[str, str], Callable[[AttemptPanel], None]] = {}
        #: The project whose rows the table shows, and those rows by dimension id.
        self._rows: tuple[tuple[str, str] | None, dict[str, DimensionEntry]] = (None, {})

    def compose_body(self) -> ComposeResult:
        yield Static(Content("Thresholds"), classes="screen-title", id="thresholds-title")
        yield Static("", classes="hint", id="thresholds-hint")
        yield Static("", id="thresholds-empty")
        yield DimensionTable(id="dimensions")
        yield AttemptPanel(id="thresholds-result", classes="panel")

    # -- what is shown -----------------------------------------------------------------

    @property
    def settings(self) -> ProjectSettings:
        """The current project's range and direction (defaults when none)."""
        current = self.services.current
        if current is None:
            return ProjectSettings()
        return self.services.session.settings.project_settings(*current)

    def refresh_data(self) -> None:
        """Re-read the current project's dimensions from the inventory."""
        table = self.query_one(DimensionTable)
        empty = self.query_one("#thresholds-empty", Static)
        hint = self.query_one("#thresholds-hint", Static)
        title = self.query_one("#thresholds-title", Static)
        current = self.services.current
        self._show_latest()

        def show(entries: list[DimensionEntry], message: Content | None) -> None:
            self.services.flush_warnings()
            self._rows = (current, {entry.id: entry for entry in entries})
            self._show_latest()  # the panel against the rows now: history if changed
            say(empty, message)
            table.show(entries, self.settings)
            show_widget(table, bool(entries), take_focus=True)

        if current is None:
            title.update(Content("Thresholds"))
            hint.update("")
            show([], Content("No project selected. Press 1 to choose one on the Projects screen."))
            return
        account, project = current
        title.update(join("Thresholds · ", safe_id(account), " / ", safe_id(project)))
        hint.update(Content(direction_words(self.settings) + " (s changes)"))

        async def read() -> list[DimensionEntry] | None:
            try:
                return await read_all_dimensions(self.services.session, account, project)
            except EXPECTED_ERRORS as exc:
                self.services.report(exc)
                return None

        def shown(entries: list[DimensionEntry] | None) -> None:
            if self.services.current != current:
                return  # another project was chosen meanwhile: its read shows it
            if entries is None:
                show([], Content(UNREADABLE))
            else:
                show(entries, None if entries else Content(NO_DIMENSION))

        self.load(read, shown, group="dimensions")

    def selected(self) -> DimensionEntry | None:
        """The dimension under the cursor, if any."""
        return self.query_one(DimensionTable).selected

    # -- edit and send -------------------------------------------------------------------

    @on(DataTable.RowSelected, "#dimensions")
    def _row_selected(self) -> None:
        self.action_edit()

    def action_edit(self) -> None:
        """Edit the selected dimension's name and thresholds."""
        current = self.current_or_say()
        entry = self.selected()
        if current is None:
            return
        if entry is None:
            self.notify("No dimension selected: press a to add one.", markup=False)
            return
        self._open_editor(current, entry.id, entry)

    def _open_editor(
        self, current: tuple[str, str], dimension_id: str, entry: DimensionEntry | None
    ) -> None:
        if self.services.refuse_if_read_only(
            f"Set thresholds of {dimension_id}"
        ):  # before the editor: it could only be refused
            return
        account, project = current
        draft = self._unsent.get((account, project, dimension_id))
        self._edit(
            ThresholdEditor(account, project, dimension_id, entry, self.settings, draft=draft)
        )

    @work(group="change", exit_on_error=False)
    async def _edit(self, editor: ThresholdEditor) -> None:
        """Open the editor; the plan it confirmed is sent exactly as planned (closed: nothing)."""
        plan = await self.services.ask(editor)
        if plan is not None:
            self._send(plan)

    @work(group="change", exit_on_error=False)
    async def _send(self, plan: PlannedChange[ThresholdUpdate]) -> None:
        """Send a plan the editor confirmed, exactly as planned."""
        target = plan.target
        assert isinstance(target, ThresholdsTarget)
        dimension_id, thresholds = target.dimension_id, target.thresholds
        key, project = (plan.account, plan.project, dimension_id), (plan.account, plan.project)
        where = f"dimension {dimension_id}: {thresholds_words(thresholds)}"
        attempt = Attempt.of_plan(plan, "Set thresholds", where)
        session = self.services.session
        try:
            with self.sending(f"setting thresholds of {dimension_id}", attempt):
                applied = await mutations.apply(session, plan, confirmed=True)
        except BaseException as exc:
            self._unsent[key] = thresholds  # not lost: the editor opens with them next time
            at = (session.clock or system_clock)().strftime("%H:%M:%S")
            self.post_message(ThresholdsFailed(project, where, Failure.of(exc, attempt), at))
            raise
        self._unsent.pop(key, None)
        self.post_message(ThresholdsSet(dimension_id, thresholds, applied, project))

    def _show_latest(self) -> None:
        """The panel shows the current project's latest attempt, or nothing."""
        panel = self.query_one(AttemptPanel)
        current = self.services.current
        show = self._latest.get(current) if current is not None else None
        if show is None:
            panel.hide()
        else:
            show(panel)

    @on_answer(ThresholdsFailed)
    def _thresholds_failed(self, message: ThresholdsFailed) -> None:
        self._latest[message.project] = partial(
            AttemptPanel.show_failure,
            failure=message.failure,
            where=safe(message.where),
            at=message.at,
        )
        self._show_latest()

    @on_answer(ThresholdsSet)
    def _thresholds_set(self, message: ThresholdsSet) -> None:
        new = message.thresholds
        journal = message.applied.journal_id
        at = (self.services.session.clock or system_clock)().strftime("%H:%M:%S")
        journaled = f"journal #{journal}" if journal is not None else "NOT journaled"
        lines = [safe(thresholds_words(new)), Content(journaled)]
        headline = join("Set: dimension ", safe_id(message.dimension_id))
        project = message.project
        dimension_id = message.dimension_id

        def show(panel: AttemptPanel) -> None:
            # Against the row shown now: set since to other values, the panel is history.
            shown_for, rows = self._rows
            entry = rows.get(dimension_id) if shown_for == project else None
            now = _since(new, entry)
            if now is None:
                panel.show_success(headline, lines, at)
            else:
                history = join(
                    f"At {at} UTC dimension ",
                    safe_id(dimension_id),
                    " was set · since changed to ",
                    Content.styled(now, "bold reverse"),
                    " (the table shows it now)",
                )
                panel.show_success(history, lines, at, history=True)

        if project is not None:
            if self._rows[0] == project and dimension_id in self._rows[1]:
                # What the answer taught the inventory, until the rows are read again.
                old = self._rows[1][dimension_id]
                self._rows[1][dimension_id] = old._replace(
                    name=new.name, block=new.block, challenge=new.challenge
                )
            self._latest[project] = show
        self._show_latest()
        words = clean(f"{message.dimension_id}: {thresholds_words(new)} ({journaled})")
        self.notify(words, title="Thresholds set", markup=False)
        # The ops layer taught the inventory; every screen that shows it re-reads.
        self.services.inventory_changed()

    # -- add, forget ---------------------------------------------------------------------

    def action_add(self) -> None:
        """Add a dimension by id and name, then edit its thresholds."""
        current = self.current_or_say()
        if current is not None:
            self._add(current)

    @work(name="dimensions-edit", group="dimensions-edit", exit_on_error=False)
    async def _add(self, current: tuple[str, str]) -> None:
        """Ask for the id and name, add the dimension to the inventory, then open its editor."""
        known = {entry.id for entry in self.query_one(DimensionTable).all_entries}
        added = await self.services.ask(AddDimensionDialog(known))
        if added is None:
            return
        (account, project), (dimension_id, name) = current, added
        session = self.services.session
        try:
            entry = await inventory_edits.add_dimension(
                session, account, project, dimension_id, name
            )
        except EXPECTED_ERRORS as exc:
            self.services.report(exc)
            entry = DimensionEntry(account, project, dimension_id, name, None, None, "", "user")
        else:
            self.services.inventory_changed()
        self.services.flush_warnings()
        self._open_editor(current, dimension_id, entry)

    def action_forget(self) -> None:
        """Remove the selected dimension from the local inventory (nothing is sent)."""
        current = self.current_or_say()
        entry = self.selected()
        if current is None:
            return
        if entry is None:
            self.notify("No dimension selected.", markup=False)
            return
        self._forget(*current, entry.id)

    @work(name="dimensions-edit", group="dimensions-edit", exit_on_error=False)
    async def _forget(self, account: str, project: str, dimension_id: str) -> None:
        """Remove the dimension from the inventory once the operator said so."""
        body = join(
            "Remove dimension ",
            safe_id(dimension_id),
            " from bottui's inventory of ",
            safe_id(account),
            " / ",
            safe_id(project),
            "?\nOnly the local record goes: nothing is sent, the service keeps its thresholds.",
        )
        if not await self.services.ask(
            ConfirmDialog("Forget dimension?", body, "Forget", danger=False)
        ):
            return
        session = self.services.session
        await inventory_edits.forget_dimension(session, account, project, dimension_id)
        self.services.flush_warnings()
        self.notify(clean(f"Forgot dimension {dimension_id}"), markup=False)
        self.services.inventory_changed()

    # -- range and direction -----------------------------------------------------------------

    def action_settings(self) -> None:
        """Set the project's threshold range and direction (saved in the profile)."""
        current = self.current_or_say()
        if current is None:
            return
        session = self.services.session
        profile = session.settings.profile_name
        if profile is None:
            self.notify(
                "Threshold settings are saved in a profile, and this session has none. "
                "Add one with: bottui profile add NAME --base-url URL",
                title="No profile",
                severity="warning",
                markup=False,
            )
            return
        self._save_settings(*current)

    @work(name="settings-edit", group="settings-edit", exit_on_error=False)
    async def _save_settings(self, account: str, project: str) -> None:
        """Ask for the range and direction, then save them (cancelled: nothing).

        Written on the store executor, never on the event loop; a failure
        reaches the one error renderer through the worker.
        """
        where = join(safe_id(account), " / ", safe_id(project))
        settings = await self.services.ask(ThresholdSettingsDialog(self.settings, where))
        if settings is None:
            return
        await save_project_settings(self.services.session, account, project, settings)
        self.services.flush_warnings()
        self.notify(clean(direction_words(settings)), title="Settings saved", markup=False)
        self.refresh_data()

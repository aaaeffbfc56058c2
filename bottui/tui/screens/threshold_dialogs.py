"""The Thresholds screen's dialogs: the editor of one dimension, add a dimension, the settings.

Adding a dimension and the project's threshold settings validate as the operator
types, show the message under the field and keep their Save button disabled until
every field is valid. Neither sends anything to the service: a dimension is added to
the local inventory, the settings go to the profile in ``config.toml``.

The editor of one dimension: name, block and challenge thresholds, then confirmation.

Each threshold is a slider with an exact input beside it
(:class:`~bottui.tui.widgets.threshold_field.ThresholdField`). Review is
disabled while a field is invalid. A challenge threshold that can never be
reached (under the project's direction) is a warning line here and an
explicit question in the confirmation, which shows old -> new for each
field. Review plans the update once (:func:`bottui.ops.planning.plan_thresholds`)
and confirms that plan (:meth:`TuiServices.confirmed`) in the editor's worker; the
editor closes with the confirmed plan, and the Thresholds screen sends exactly it.
Escape (or Cancel) with edits unsent asks first
(:class:`~bottui.tui.screens.dialogs.DiscardDialog`, Keep editing
focused); with nothing edited it closes at once.
"""

from __future__ import annotations

import math
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from bottui.api.client import ThresholdUpdate, build_thresholds
from bottui.api.errors import ValidationError
from bottui.api.models import DimensionThresholds
from bottui.api.requests import dimension_name, first_forbidden_char, path_id
from bottui.ops import planning
from bottui.ops.planning import PlannedChange
from bottui.ops.thresholds import never_reached, warning_words
from bottui.store.config.config_model import ProjectSettings
from bottui.store.inventory.inventory_records import DimensionEntry
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.error_report import EXPECTED_ERRORS, error_title
from bottui.tui.key_registry import DIALOG_HELP
from bottui.tui.screens.base import UsesServices, say
from bottui.tui.screens.dialogs import DiscardDialog, _Form
from bottui.tui.widgets.threshold_field import ThresholdField, format_number
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe, safe_id


class _ThresholdForm(_Form):
    """A framed form: fields with error lines, Cancel and Save; escape cancels."""

    SUBMIT = "save"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close without saving", id="thresholds.dialog.cancel"),
        DIALOG_HELP,
    ]

    def _set_error(self, widget_id: str, message: str | None) -> None:
        say(self.query_one(f"#{widget_id}", Static), None if message is None else safe(message))


class AddDimensionDialog(_ThresholdForm):
    """Id and name of a dimension to add (the PUT needs the name; nothing reads it).

    Args:
        known_ids: Ids the project has already (refused: edit those instead).
    """

    def __init__(self, known_ids: set[str]) -> None:
        super().__init__()
        self._known_ids = known_ids

    def compose(self) -> ComposeResult:
        with Vertical(classes="thresholds-dialog"):
            yield Label(Content("Add a dimension"), classes="dialog-title")
            yield Static(
                Content(
                    "The service cannot list dimensions or tell their names: enter the id "
                    "and the name exactly as configured in the service."
                ),
                classes="hint",
            )
            with Horizontal(classes="thresholds-form-row"):
                yield Label(Content("Id"), classes="threshold-label")
                yield PlainInput(id="dimension-id", placeholder="dimension id")
            yield Static("", classes="field-error", id="dimension-id-error")
            with Horizontal(classes="thresholds-form-row"):
                yield Label(Content("Name"), classes="threshold-label")
                yield PlainInput(id="dimension-name", placeholder="dimension name")
            yield Static("", classes="field-error", id="dimension-name-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel", classes="closes")
                yield Button("Add", id="save", variant="primary", disabled=True)

    def _errors(self) -> tuple[str | None, str | None]:
        dimension_id = self.query_one("#dimension-id", Input).value
        name = self.query_one("#dimension-name", Input).value
        id_error: str | None = None
        name_error: str | None = None
        try:
            path_id("dimension id", dimension_id)
        except ValidationError as exc:
            id_error = exc.message
        if id_error is None and dimension_id in self._known_ids:
            id_error = "is in the list already: press enter on it to edit it"
        try:
            dimension_name(name)
        except ValidationError as exc:
            name_error = exc.message
        return id_error, name_error

    def result(self, *, show_empty: bool = False) -> tuple[str, str] | None:
        id_error, name_error = self._errors()
        id_input = self.query_one("#dimension-id", Input)
        name_input = self.query_one("#dimension-name", Input)
        # An untouched empty field is not an error yet; it only keeps Add disabled.
        self._set_error("dimension-id-error", id_error if show_empty or id_input.value else None)
        self._set_error(
            "dimension-name-error", name_error if show_empty or name_input.value else None
        )
        if id_error is None and name_error is None:
            return id_input.value, name_input.value
        return None

    def focus_invalid(self) -> None:
        id_input = self.query_one("#dimension-id", Input)
        name_input = self.query_one("#dimension-name", Input)
        id_error, _ = self._errors()
        if id_error is None and self.focused is id_input and not name_input.value:
            # Enter after the id moves on to the name; no error for a field not reached yet.
            name_input.focus()
            return
        self.result(show_empty=True)
        (id_input if id_error else name_input).focus()


_HIGHER = "higher"
_LOWER = "lower"


class ThresholdSettingsDialog(_ThresholdForm):
    """Range and direction of a project's thresholds (the spec fixes neither).

    Args:
        settings: The current settings.
        where: Our own description of the project (already made safe).
    """

    def __init__(self, settings: ProjectSettings, where: Content) -> None:
        super().__init__()
        self._settings = settings
        self._where = where

    def compose(self) -> ComposeResult:
        settings = self._settings
        with Vertical(classes="thresholds-dialog"):
            yield Label(Content("Threshold settings"), classes="dialog-title")
            yield Static(
                join(
                    "For ",
                    self._where,
                    ". Saved in this profile; the service neither knows nor checks them.",
                ),
                classes="hint",
            )
            with Horizontal(classes="thresholds-form-row"):
                yield Label(Content("Minimum"), classes="threshold-label")
                yield PlainInput(format_number(settings.threshold_min), id="threshold-min")
            yield Static("", classes="field-error", id="threshold-min-error")
            with Horizontal(classes="thresholds-form-row"):
                yield Label(Content("Maximum"), classes="threshold-label")
                yield PlainInput(format_number(settings.threshold_max), id="threshold-max")
            yield Static("", classes="field-error", id="threshold-max-error")
            with Horizontal(classes="thresholds-form-row"):
                yield Label(Content("Riskier"), classes="threshold-label")
                yield Select(
                    [
                        ("higher score is riskier (challenge below block)", _HIGHER),
                        ("lower score is riskier (challenge above block)", _LOWER),
                    ],
                    value=_HIGHER if settings.higher_is_riskier else _LOWER,
                    allow_blank=False,
                    id="threshold-direction",
                )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel", classes="closes")
                yield Button("Save", id="save", variant="primary")

    @staticmethod
    def _number(text: str) -> tuple[float | None, str | None]:
        try:
            value = float(text.strip())
        except ValueError:
            return None, "must be a number"
        if not math.isfinite(value):
            return None, "must be a finite number"
        return value, None

    def result(self) -> ProjectSettings | None:
        low, low_error = self._number(self.query_one("#threshold-min", Input).value)
        high, high_error = self._number(self.query_one("#threshold-max", Input).value)
        if low is not None and high is not None and not low < high:
            high_error = "must be greater than the minimum"
        self._set_error("threshold-min-error", low_error)
        self._set_error("threshold-max-error", high_error)
        if low is None or high is None or high_error is not None:
            return None
        direction = self.query_one("#threshold-direction", Select).value
        try:
            return ProjectSettings(
                threshold_min=low, threshold_max=high, higher_is_riskier=direction == _HIGHER
            )
        except EXPECTED_ERRORS as exc:  # belt and braces: the model's own checks
            self._set_error("threshold-max-error", error_title(exc))
            return None


UNKNOWN = "unknown"
REVIEW = "Review and send"
FIX_FIRST = "Fix the fields first"


def editable(text: str | None) -> str:
    """Known text to prefill an input with; "" when unknown or holding control characters.

    An input shows its value raw, so text with control characters never goes
    in one: such a name could not be sent anyway, and the operator retypes it.
    """
    if text is None or first_forbidden_char(text) is not None:
        return ""
    return text


def direction_words(settings: ProjectSettings) -> str:
    """The project's range and direction, in one line of our own words."""
    low, high = format_number(settings.threshold_min), format_number(settings.threshold_max)
    if settings.higher_is_riskier:
        way = "higher score is riskier: challenge below block"
    else:
        way = "lower score is riskier: challenge above block"
    return f"Range {low} to {high} · {way}"


def change_lines(known: DimensionEntry | None, new: DimensionThresholds) -> Content:
    """``field: old -> new`` for name, block and challenge (old "unknown" when unknown)."""
    olds = (known.name, known.block, known.challenge) if known else (None, None, None)
    rows = (("name", new.name), ("block", new.block), ("challenge", new.challenge))
    lines = [
        join(
            f"{label + ':':<11}",
            UNKNOWN if before is None else safe(before),
            " -> ",
            safe(value),
            "  (unchanged)" if before == value else "",
        )
        for (label, value), before in zip(rows, olds, strict=True)
    ]
    return Content("\n").join(lines)


class ThresholdEditor(ModalScreen[PlannedChange[ThresholdUpdate] | None], UsesServices):
    """Edit one dimension; closes with the confirmed plan, or None.

    Args:
        account: The account id.
        project: The project id.
        dimension_id: The dimension to set.
        known: What the inventory knows of it (None: nothing).
        settings: The project's range and direction.
        draft: Values confirmed earlier whose sending failed: the fields
            start with them instead of the known ones.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close without sending", id="thresholds.editor.cancel"),
        # Inputs post Submitted and buttons press themselves; a focused slider lands here.
        Binding("enter", "submit", "Review and send", id="thresholds.editor.submit"),
        DIALOG_HELP,
    ]

    def __init__(
        self,
        account: str,
        project: str,
        dimension_id: str,
        known: DimensionEntry | None,
        settings: ProjectSettings,
        *,
        draft: DimensionThresholds | None = None,
    ) -> None:
        super().__init__()
        self.draft = draft
        self.account = account
        self.project = project
        self.dimension_id = dimension_id
        self.known = known
        self.settings = settings
        #: What the fields held when opened: Escape asks only when one differs.
        self._opened: dict[str, str] = {}

    def _target(self) -> Content:
        """``Dimension <id> in <account> / <project>``, every part shown as plain text."""
        where = join(safe_id(self.account), " / ", safe_id(self.project))
        return join("Dimension ", safe_id(self.dimension_id), " in ", where)

    def compose(self) -> ComposeResult:
        low, high = self.settings.threshold_min, self.settings.threshold_max
        with Vertical(id="editor-box"):
            yield Label(Content("Edit dimension thresholds"), classes="dialog-title")
            yield Static(self._target(), id="editor-target")
            with Horizontal(classes="thresholds-form-row"):
                yield Label(Content("Name"), classes="threshold-label")
                yield PlainInput(
                    value=self._start("name"),
                    id="name",
                    placeholder=self._name_placeholder(),
                )
            yield Static("", classes="field-error", id="name-error")
            yield ThresholdField(
                "Block",
                "block threshold",
                self._start("block"),
                minimum=low,
                maximum=high,
                id="block",
            )
            yield ThresholdField(
                "Challenge",
                "challenge threshold",
                self._start("challenge"),
                minimum=low,
                maximum=high,
                id="challenge",
            )
            yield Static(Content(direction_words(self.settings)), classes="hint", id="editor-range")
            if self.draft is not None:
                yield Static(
                    Content("Filled with the values whose sending failed last time."),
                    classes="hint",
                    id="editor-draft",
                )
            yield Static("", id="editor-warning")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(REVIEW, id="submit", variant="primary")

    def _start(self, name: str) -> str:
        source = self.draft if self.draft is not None else self.known
        return editable(getattr(source, name)) if source is not None else ""

    def _name_placeholder(self) -> str:
        if self.known and self.known.name and not editable(self.known.name):
            return "the known name holds control characters: type it again"
        return "required by the service"

    def on_mount(self) -> None:
        self._opened = self._values()
        self._check()
        if self.query_one("#name", Input).value.strip():
            self.query_one("#block", ThresholdField).slider.focus()
        else:
            self.query_one("#name", Input).focus()

    # -- validation ----------------------------------------------------------------

    def _name_error(self) -> str | None:
        try:
            dimension_name(self.query_one("#name", Input).value)
        except ValidationError as exc:
            return exc.message
        return None

    def _check(self) -> bool:
        """Update error and warning lines and the submit button; True when valid."""
        error = self._name_error()
        say(self.query_one("#name-error", Static), join("Name: ", safe(error)) if error else None)
        block = self.query_one("#block", ThresholdField)
        challenge = self.query_one("#challenge", ThresholdField)
        valid = error is None and block.valid and challenge.valid
        warns = block.literal and challenge.literal and self._never_reached(block, challenge)
        warning = Content("Warning: " + warning_words(self.settings)) if warns else None
        say(self.query_one("#editor-warning", Static), warning)
        submit = self.query_one("#submit", Button)
        submit.disabled = not valid
        # Said in words too: a disabled button looks alike under NO_COLOR.
        submit.label = Content(REVIEW if valid else FIX_FIRST)
        return valid

    def _never_reached(self, block: ThresholdField, challenge: ThresholdField) -> bool:
        assert block.literal is not None and challenge.literal is not None
        return never_reached(block.literal, challenge.literal, self.settings.higher_is_riskier)

    @on(Input.Changed, "#name")
    @on(ThresholdField.Changed)
    def _changed(self) -> None:
        self._check()

    # -- review and confirm ---------------------------------------------------------------

    def thresholds(self) -> DimensionThresholds:
        """The body to send: the name and the thresholds exactly as typed."""
        return build_thresholds(
            self.query_one("#name", Input).value,
            self.query_one("#block", ThresholdField).text,
            self.query_one("#challenge", ThresholdField).text,
        )

    @on(Input.Submitted)
    @on(Button.Pressed, "#submit")
    def action_submit(self) -> None:
        """Review old -> new and ask for confirmation (Enter in a field too)."""
        if not self._check():
            self._focus_first_invalid()
            return
        try:
            new = self.thresholds()
        except ValidationError as exc:
            self.services.report(exc)
            return
        block = self.query_one("#block", ThresholdField)
        challenge = self.query_one("#challenge", ThresholdField)
        warn = self._never_reached(block, challenge)
        body = join(self._target(), "\n\n", change_lines(self.known, new))
        if warn:
            body = join(
                body,
                "\n\nWarning: ",
                warning_words(self.settings),
                "\nSet these thresholds anyway?",
            )
        operation = f"Set thresholds of {self.dimension_id}"
        if not self.services.refuse_if_read_only(operation):  # before planning
            self._review(new, body, warn, operation)

    @work(group="plan", exit_on_error=False)
    async def _review(
        self, new: DimensionThresholds, body: Content, warn: bool, operation: str
    ) -> None:
        """Plan the update once, confirm that plan; the editor closes with it, and the
        Thresholds screen sends exactly it (the dialog and the dry run are this plan's)."""
        services = self.services
        update = planning.plan_thresholds(
            services.session, self.account, self.project, self.dimension_id, new
        )
        plan = await services.planned(update, operation)
        if plan is not None:
            prompt = ChangePrompt.of(
                plan,
                body,
                title="Challenge never reached: set anyway?" if warn else None,
                confirm_label="Set anyway" if warn else None,
            )
            plan = await services.confirmed(plan, prompt, operation)
        if plan is not None:
            self.dismiss(plan)

    def _focus_first_invalid(self) -> None:
        if self._name_error() is not None:
            self.query_one("#name", Input).focus()
            return
        for field_id in ("#block", "#challenge"):
            field = self.query_one(field_id, ThresholdField)
            if not field.valid:
                field.input.focus()
                return

    # -- closing -------------------------------------------------------------------------

    def _values(self) -> dict[str, str]:
        """What each field holds now, by field: ``name``, ``block``, ``challenge``."""
        return {
            "name": self.query_one("#name", Input).value,
            "block": self.query_one("#block", ThresholdField).text,
            "challenge": self.query_one("#challenge", ThresholdField).text,
        }

    def edited(self) -> list[str]:
        """The fields whose text differs from when the editor opened, in order."""
        now = self._values()
        return [name for name, text in now.items() if text != self._opened.get(name, text)]

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close, nothing sent; with edits, ask first (Keep editing focused)."""
        edited = self.edited()
        if not edited:
            self.dismiss(None)
            return

        now = self._values()
        lines = [
            f"{name}: {self._opened[name] or '(empty)'} -> {now[name] or '(empty)'}"
            for name in edited
        ]
        self._discard(DiscardDialog(edited, lines))

    @work(group="discard", exit_on_error=False)
    async def _discard(self, dialog: DiscardDialog) -> None:
        """Close without sending once the operator said to discard the edits."""
        if await self.services.ask(dialog):
            self.dismiss(None)

"""Small dialogs of the Thresholds screen: add a dimension, the project's threshold settings.

Both validate as the operator types, show the message under the field and
keep their Save button disabled until every field is valid. Neither sends
anything to the service: a dimension is added to the local inventory, the
settings go to the profile in ``config.toml``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import dimension_name, path_id
from bottui.store.config.model import ProjectSettings
from bottui.tui.error_view import EXPECTED_ERRORS, error_title
from bottui.tui.help_rows import DIALOG_HELP
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import join, safe
from bottui.tui.widgets.slider import format_number


class _FormDialog(ModalScreen[Any]):
    """A framed form: fields with error lines, Cancel and Save; escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close without saving", id="thresholds.dialog.cancel"),
        DIALOG_HELP,
    ]

    def _set_error(self, widget_id: str, message: str | None) -> None:
        label = self.query_one(f"#{widget_id}", Static)
        label.update(safe(message) if message else "")
        label.display = message is not None

    def action_cancel(self) -> None:
        """Close; nothing is saved."""
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


class AddDimensionDialog(_FormDialog):
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
                yield Button("Cancel", id="cancel")
                yield Button("Add", id="save", variant="primary", disabled=True)

    def on_mount(self) -> None:
        self._check(show_empty=False)
        self.query_one("#dimension-id", Input).focus()

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

    def _check(self, *, show_empty: bool = True) -> bool:
        id_error, name_error = self._errors()
        id_input = self.query_one("#dimension-id", Input)
        name_input = self.query_one("#dimension-name", Input)
        # An untouched empty field is not an error yet; it only keeps Add disabled.
        self._set_error("dimension-id-error", id_error if show_empty or id_input.value else None)
        self._set_error(
            "dimension-name-error", name_error if show_empty or name_input.value else None
        )
        valid = id_error is None and name_error is None
        self.query_one("#save", Button).disabled = not valid
        return valid

    @on(Input.Changed)
    def _changed(self) -> None:
        self._check(show_empty=False)

    @on(Input.Submitted)
    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        id_input = self.query_one("#dimension-id", Input)
        name_input = self.query_one("#dimension-name", Input)
        id_error, name_error = self._errors()
        if id_error is None and name_error is None:
            self.dismiss((id_input.value, name_input.value))
            return
        if id_error is None and self.focused is id_input and not name_input.value:
            # Enter after the id moves on to the name; no error for a field not reached yet.
            name_input.focus()
            return
        self._check()
        (id_input if id_error else name_input).focus()


_HIGHER = "higher"
_LOWER = "lower"


class ThresholdSettingsDialog(_FormDialog):
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
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def on_mount(self) -> None:
        self._check()
        self.query_one("#threshold-min", Input).focus()

    @staticmethod
    def _number(text: str) -> tuple[float | None, str | None]:
        try:
            value = float(text.strip())
        except ValueError:
            return None, "must be a number"
        if not math.isfinite(value):
            return None, "must be a finite number"
        return value, None

    def _result(self) -> ProjectSettings | None:
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

    def _check(self) -> bool:
        ok = self._result() is not None
        self.query_one("#save", Button).disabled = not ok
        return ok

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self) -> None:
        self._check()

    @on(Input.Submitted)
    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        result = self._result()
        if result is not None:
            self.dismiss(result)

"""The forms of the Projects screen: add or edit a project (the profile form is
:mod:`bottui.tui.screens.profile_form`).

Each form validates as the operator types, with the checks of the ops that
will write it (:mod:`bottui.ops.inventory_edits`, :mod:`bottui.ops.profiles`):
the message goes under the field, the submit button stays disabled while
anything is invalid. A form returns what was entered; the screen hands it to
those ops, in a worker.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import path_id
from bottui.ops.inventory_edits import check_display_name
from bottui.plaintext import clean
from bottui.tui.error_view import field_words
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.widgets.form_field import FormField
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import join, safe_id


@dataclass(frozen=True)
class ProjectDraft:
    """What the project form returns: ids and display name (``None``: no name)."""

    account: str
    project: str
    name: str | None


class _FormDialog(_Dialog):
    """A dialog whose Enter submits when every field is valid."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Cancel", id="form.cancel"),
    ]

    def validate_form(self) -> bool:
        """Check every field, show the messages; True when all are valid."""
        raise NotImplementedError

    def submit(self) -> None:
        """Dismiss with the form's result (only called when valid)."""
        raise NotImplementedError

    def first_field(self) -> Input:
        """The field that has the focus when the form opens."""
        return self.query(Input).first()

    def on_mount(self) -> None:
        self.validate_form()
        self.first_field().focus()

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _changed(self) -> None:
        self.validate_form()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        if self.validate_form():
            self.submit()
            return
        for field in self.query(FormField):
            if field.has_class("-invalid"):
                field.query_one(Input).focus()
                return

    @on(Button.Pressed, "#form-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#form-submit")
    def _submit(self) -> None:
        if self.validate_form():
            self.submit()


class ProjectForm(_FormDialog):
    """Add a project, or give a known one another display name.

    Args:
        existing: ``(account, project)`` of every project already in the inventory.
        account: The account id to offer when adding.
        edit: ``(account, project, name)`` of the project to edit; its ids stay as they are.
    """

    def __init__(
        self,
        *,
        existing: Collection[tuple[str, str]],
        account: str = "",
        edit: tuple[str, str, str | None] | None = None,
    ) -> None:
        super().__init__()
        self._existing = set(existing)
        self._account = account
        self._edit = edit

    def compose(self) -> ComposeResult:
        editing = self._edit is not None
        with Vertical():
            title = "Edit project" if editing else "Add a project"
            yield Label(Content(title), classes="dialog-title")
            if self._edit is not None:
                account, project, name = self._edit
                yield Static(join("Account id  ", safe_id(account)), id="form-account-id")
                yield Static(join("Project id  ", safe_id(project)), id="form-project-id")
                yield Static(
                    Content("Ids cannot change: remove the project and add it again."),
                    classes="hint",
                )
                shown = clean(name)
            else:
                yield FormField(
                    "Account id",
                    PlainInput(
                        value=clean(self._account),
                        id="account",
                        placeholder="e.g. acme",
                        compact=True,
                    ),
                    id="field-account",
                )
                yield FormField(
                    "Project id",
                    PlainInput(id="project", placeholder="e.g. shop-prod", compact=True),
                    id="field-project",
                )
                shown = ""
            yield FormField(
                "Display name",
                PlainInput(
                    value=shown, id="name", placeholder="optional: how you call it", compact=True
                ),
                id="field-name",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="form-cancel")
                yield Button(
                    "Save" if editing else "Add project", id="form-submit", variant="primary"
                )

    def first_field(self) -> Input:
        if self._edit is None and self._account:
            return self.query_one("#project", Input)
        return super().first_field()

    def _draft(self) -> ProjectDraft | None:
        """The checked draft, showing each field's message; None while invalid."""
        ok = True
        if self._edit is not None:
            account, project = self._edit[0], self._edit[1]
        else:
            account = self.query_one("#account", Input).value
            project = self.query_one("#project", Input).value
            for field_id, label, value in (
                ("#field-account", "account id", account),
                ("#field-project", "project id", project),
            ):
                field = self.query_one(field_id, FormField)
                try:
                    path_id(label, value)
                except ValidationError as exc:
                    # Empty is not "wrong" yet: say nothing until something is typed.
                    field.show_error(None if value == "" else field_words(exc))
                    field.set_class(True, "-invalid")
                    ok = False
                else:
                    field.show_error(None)
            if ok and (account, project) in self._existing:
                self.query_one("#field-project", FormField).show_error(
                    Content("This project is in the inventory already: edit it instead (r).")
                )
                ok = False
        name_field = self.query_one("#field-name", FormField)
        try:
            name = check_display_name(self.query_one("#name", Input).value)
        except ValidationError as exc:
            name_field.show_error(field_words(exc))
            ok = False
            name = None
        else:
            name_field.show_error(None)
        return ProjectDraft(account, project, name) if ok else None

    def validate_form(self) -> bool:
        ok = self._draft() is not None
        self.query_one("#form-submit", Button).disabled = not ok
        return ok

    def submit(self) -> None:
        draft = self._draft()
        if draft is None:
            return
        if self._edit is not None and (draft.name or "") == clean(self._edit[2]):
            # Untouched: the shown name is the cleaned one; do not write it back.
            self.dismiss(None)
            return
        self.dismiss(draft)

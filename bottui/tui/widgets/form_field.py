"""One labelled field of a form, with its error message under it.

Forms validate as the operator types: the message appears under the field
and the submit button stays disabled while any field is invalid. The label
sits left of a compact (one-row) field so that a form fits in 24 rows.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Label, Static


class FormField(Vertical):
    """A label and one input widget on a row, and a line for its error under them.

    Args:
        label: Our own words naming the field.
        field: The input widget (Input, SecretInput, ...).
        hint: Optional words under the field while it is valid.
    """

    DEFAULT_CSS = """
    FormField { height: auto; margin-bottom: 1; }
    FormField > Horizontal { height: auto; }
    FormField > Horizontal > .form-label { width: 16; padding: 0 1; }
    FormField > Horizontal > Input { width: 1fr; background: $boost; }
    FormField > Horizontal > Input:focus { background: $primary 25%; }
    FormField > .form-error { color: $error; padding: 0 1 0 16; height: auto; }
    FormField > .form-hint { color: $text-muted; padding: 0 1 0 16; height: auto; }
    """

    def __init__(self, label: str, field: Widget, *, hint: str = "", id: str | None = None):
        super().__init__(id=id)
        self._label = label
        self._field = field
        self._hint = hint

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label(Content(self._label), classes="form-label")
            yield self._field
        hint = Static(Content(self._hint), classes="form-hint")
        hint.display = bool(self._hint)
        yield hint
        error = Static("", classes="form-error")
        error.display = False
        yield error

    def show_error(self, message: Content | None) -> None:
        """Show ``message`` (safe Content) under the field, or clear it."""
        error = self.query_one(".form-error", Static)
        error.update(message or "")
        error.display = message is not None
        self.query_one(".form-hint", Static).display = message is None and bool(self._hint)
        self.set_class(message is not None, "-invalid")

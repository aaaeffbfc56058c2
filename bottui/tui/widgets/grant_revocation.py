"""The Grants screen's revocation: its form, and this session's revocations.

:class:`RevocationForm` takes a visitor id, a user account id, or both,
validated as the operator types with the same rules the client applies
before sending (:func:`bottui.api.requests.subject_id`): 1 to 256
characters, no control characters, at least one id. The message sits under
its field and the submit button stays disabled while anything is wrong. The
form only asks; the screen confirms and sends (it hears
:class:`RevocationForm.Submitted`).

:class:`RevocationHistory` lists this session's revocations, newest first:
time, ids, outcome, reportId. Failed calls are listed too ("failed: ..."),
so the table is an honest account of what the operator tried, not only of
what worked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import subject_id
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.ui_rules import tone
from bottui.tui.widgets.result_panels import UNKNOWN_FAILURE, RevocationRecord
from bottui.tui.widgets.untrusted_text import PlainInput, safe, safe_id_text, safe_text

#: Input id -> (field name in messages, error Static id).
FIELDS: Final = {
    "visitor-id": ("Visitor id", "visitor-id-error"),
    "user-account-id": ("User account id", "user-account-id-error"),
}
NEED_ONE: Final = "Give a visitor id, a user account id, or both."
READY: Final = "Nothing is sent before you confirm."


def field_problem(label: str, value: str) -> tuple[str, bool]:
    """(message, blocking) for one field; ``("", False)`` when it is fine or empty.

    Surrounding spaces are allowed (sent exactly as typed) but pointed out:
    a pasted id with a trailing space matches no grant.
    """
    if value == "":
        return "", False
    try:
        subject_id(label.lower(), value)
    except ValidationError as exc:
        return f"{label} {exc.message}", True
    if value != value.strip():
        return f"{label} starts or ends with a space; it is sent exactly as typed", False
    return "", False


class RevocationForm(Vertical):
    """Two fields and a submit button; posts :class:`Submitted` when valid."""

    @dataclass
    class Submitted(Message):
        """The operator asked to revoke (values validated; None = not given)."""

        form: RevocationForm
        visitor_id: str | None
        user_account_id: str | None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="form-row"):
            yield Label(Content("Visitor id"))
            yield PlainInput(placeholder="subject.visitorId", id="visitor-id")
        yield Static("", id="visitor-id-error", classes="field-error")
        with Horizontal(classes="form-row"):
            yield Label(Content("User account id"))
            yield PlainInput(placeholder="subject.userAccountId", id="user-account-id")
        yield Static("", id="user-account-id-error", classes="field-error")
        with Horizontal(classes="buttons"):
            yield Button(Content("Revoke grant…"), id="revoke", variant="error", disabled=True)
            yield Static(Content(NEED_ONE), id="revoke-hint", classes="hint")

    def on_mount(self) -> None:
        self.check()

    # -- values and validation ------------------------------------------------------

    def values(self) -> tuple[str | None, str | None]:
        """(visitor id, user account id) as typed; None for an empty field."""
        visitor = self.query_one("#visitor-id", Input).value
        user = self.query_one("#user-account-id", Input).value
        return visitor or None, user or None

    def check(self) -> bool:
        """Validate both fields, show messages, enable submit; True when valid."""
        blocked = False
        for input_id, (label, error_id) in FIELDS.items():
            value = self.query_one(f"#{input_id}", Input).value
            message, blocking = field_problem(label, value)
            blocked = blocked or blocking
            error = self.query_one(f"#{error_id}", Static)
            error.update(safe(message))
            error.set_class(not blocking and bool(message), "field-note")
            error.display = bool(message)
        given = any(self.values())
        valid = given and not blocked
        self.query_one("#revoke", Button).disabled = not valid
        hint = READY if valid else (NEED_ONE if not given else "Fix the field above to revoke.")
        self.query_one("#revoke-hint", Static).update(Content(hint))
        return valid

    def clear(self) -> None:
        """Empty both fields (after a revocation was answered)."""
        for input_id in FIELDS:
            self.query_one(f"#{input_id}", Input).value = ""
        self.check()

    def focus_first(self) -> None:
        """Focus the visitor id field."""
        self.query_one("#visitor-id", Input).focus()

    # -- events ---------------------------------------------------------------------

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.check()

    @on(Input.Submitted, "#visitor-id")
    def _next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#user-account-id", Input).focus()

    @on(Input.Submitted, "#user-account-id")
    def _submit_from_field(self, event: Input.Submitted) -> None:
        # Enter in the last field submits only when valid; the confirmation
        # dialog that follows still protects against a stray Enter.
        event.stop()
        self._submit()

    @on(Button.Pressed, "#revoke")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._submit()

    def _submit(self) -> None:
        if self.check():
            visitor, user = self.values()
            self.post_message(self.Submitted(self, visitor, user))


COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("project", "Project"),
    ("visitor", "Visitor id"),
    ("user", "User account id"),
    ("outcome", "Outcome"),
    ("report", "reportId"),
)
#: Outcome words -> (attributes, colour); any other words are a failure (bold, red).
_OUTCOME_STYLE: Final = {
    "withdrawn": ("bold", "green"),
    "nothing standing": ("bold", ""),
    "unknown": ("bold underline", "yellow"),
    "unknown (retried)": ("bold underline", "yellow"),
    UNKNOWN_FAILURE: ("bold underline", "yellow"),
}


class RevocationHistory(MeasuredTable[Text]):
    """One row per revocation of this session, newest first."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)

    def on_mount(self) -> None:
        for key, heading in COLUMNS:
            self.add_column(heading, key=key)

    def show(self, records: Sequence[RevocationRecord]) -> None:
        """Replace the rows with ``records`` (given oldest first)."""
        self.clear()
        for record in reversed(records):
            words = record.outcome_words
            report = record.revocation.report_id if record.revocation else None
            self.add_row(
                Text(record.at.strftime("%H:%M:%S")),
                safe_id_text(record.project),
                safe_id_text(record.visitor_id or "—"),
                safe_id_text(record.user_account_id or "—"),
                safe_text(words, style=tone(*_OUTCOME_STYLE.get(words, ("bold", "red")))),
                safe_text(report or ""),
            )

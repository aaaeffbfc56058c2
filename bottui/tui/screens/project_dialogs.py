"""The Projects screen's dialogs: a project's form, and a token's masked field.

The form adds or edits a project (the profile form is
:mod:`bottui.tui.screens.profile_switcher`).

Each form validates as the operator types, with the checks of the ops that
will write it (:mod:`bottui.ops.inventory_edits`, :mod:`bottui.ops.profiles`):
the message goes under the field, the submit button stays disabled while
anything is invalid. A form returns what was entered; the screen hands it to
those ops, in a worker.

The token dialog sets, replaces or deletes one token: a masked field that goes
straight to the keyring.

The value typed here is shown as dots, cannot be copied out of the field,
is wrapped in its token type the moment it is submitted, and the field is
cleared at once: the keyring is the only place it goes. When the keyring is
absent, locked or silent, the dialog says so and shows the remedies
(environment variables, a Secret Service, keyring's own configuration).

**The parts of a form**: one labelled field with its error line, and a checkbox that reads as text.

Forms validate as the operator types: the message appears under the field
and the submit button stays disabled while any field is invalid. The label
sits left of a compact (one-row) field so that a form fits in 24 rows
(:class:`FormField`).

:class:`StateCheckbox` reads ``[x] Resume`` on and ``[ ] Resume`` off.
Textual's ``Checkbox`` draws ``▐X▌`` both on and off and tells them apart by
colour alone, which NO_COLOR, 16 colours and monochrome lose (and an X reads
as "on" to most people even when it is off). Here the box holds ``x`` or a
space, in bold, so the state survives any palette.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from functools import partial
from typing import Any, ClassVar

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import first_forbidden_char, path_id
from bottui.api.tokens import Secret
from bottui.ops.inventory_edits import check_display_name
from bottui.ops.token_slots import Reading, Slot, delete_token, store_token
from bottui.plaintext import clean
from bottui.store.keyring_tokens import TokenState
from bottui.store.store_errors import KeyringUnavailable
from bottui.tui.error_report import EXPECTED_ERRORS, error_line, field_words
from bottui.tui.screens.base import say
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import _Dialog, _Form
from bottui.tui.services import services_of
from bottui.tui.widgets.untrusted_text import PlainInput, SecretInput, join, safe_id


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
        say(self.query_one(".form-error", Static), message)
        self.query_one(".form-hint", Static).display = message is None and bool(self._hint)
        self.set_class(message is not None, "-invalid")


class StateCheckbox(Checkbox):
    """A ``Checkbox`` drawn ``[x]`` when on and ``[ ]`` when off (see the module docstring)."""

    DEFAULT_CSS = """
    StateCheckbox > .toggle--button,
    StateCheckbox.-on > .toggle--button {
        background: transparent;
        color: $text;
        text-style: bold;
    }
    StateCheckbox:focus > .toggle--button { text-style: bold reverse; }
    """

    BUTTON_LEFT: str = ""
    BUTTON_RIGHT: str = ""
    BUTTON_INNER: str = "[ ]"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._show_state()

    def watch_value(self) -> None:
        super().watch_value()
        self._show_state()
        self.refresh(layout=True)

    def _show_state(self) -> None:
        # BUTTON_INNER is Textual's documented way to choose the box's characters;
        # set per instance, it follows the value.
        self.BUTTON_INNER = "[x]" if self.value else "[ ]"


class ProjectDraft(msgspec.Struct, frozen=True):
    """What the project form returns: ids and display name (``None``: no name)."""

    account: str
    project: str
    name: str | None


class _FormDialog(_Dialog, _Form):
    """A dialog of :class:`FormField` rows whose Enter submits when every field is valid."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Cancel", id="form.cancel"),
    ]

    def check_field(self, field_id: str, raw: str, check: Callable[[str], object]) -> bool:
        """Run ``check`` on ``raw``; show its refusal under the field (none while empty)."""
        field = self.query_one(field_id, FormField)
        try:
            check(raw)
        except ValidationError as exc:
            field.show_error(None if raw == "" else field_words(exc))
            field.set_class(True, "-invalid")
            return False
        field.show_error(None)
        return True

    def focus_invalid(self) -> None:
        for field in self.query(FormField):
            if field.has_class("-invalid"):
                field.query_one(Input).focus()
                return


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
                yield Button("Cancel", id="form-cancel", classes="closes")
                yield Button(
                    "Save" if editing else "Add project", id="form-submit", variant="primary"
                )

    def first_field(self) -> Input:
        if self._edit is None and self._account:
            return self.query_one("#project", Input)
        return super().first_field()

    def result(self) -> ProjectDraft | None:
        """The checked draft, showing each field's message; None while invalid."""
        ok = True
        if self._edit is not None:
            account, project = self._edit[0], self._edit[1]
        else:
            account = self.query_one("#account", Input).value
            project = self.query_one("#project", Input).value
            # Empty is not "wrong" yet: nothing is said until something is typed.
            ok = self.check_field("#field-account", account, partial(path_id, "account id"))
            ok = self.check_field("#field-project", project, partial(path_id, "project id")) and ok
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

    def unchanged(self, result: ProjectDraft) -> bool:
        # The shown name is the cleaned one: untouched, it is not written back.
        return self._edit is not None and (result.name or "") == clean(self._edit[2])


#: Stores a token for the slot; returns the slot's state afterwards.
SaveToken = Callable[[Secret], Awaitable[TokenState]]
#: Deletes the slot's stored token; returns (whether one was stored, state afterwards).
DeleteToken = Callable[[], Awaitable[tuple[bool, TokenState]]]


def slot_title(slot: Slot) -> Content:
    """ "Project API token of acme / shop-prod", ids made safe."""
    if slot.project is None:
        return join("Personal access token of account ", safe_id(slot.account))
    return join("Project API token of ", safe_id(slot.account), " / ", safe_id(slot.project))


def slot_use(slot: Slot) -> str:
    """What the token is for, in the spec's words."""
    if slot.kind == "personal":
        return (
            "Revokes challenge grants and sets dimension thresholds in this account's "
            "projects (scopes: Project Action, Dimension Thresholds Action)."
        )
    return "Switches this project's rate limiters on and off."


def state_words(slot: Slot, reading: Reading | None) -> str:
    """Where the slot's token comes from now, in a sentence (never the token)."""
    if reading is None:
        return "Now: not known yet."
    if isinstance(reading, KeyringUnavailable):
        return "Now: unknown, the keyring is unavailable."
    if reading is TokenState.STORED:
        return "Now: stored in the keyring."
    if reading is TokenState.ENVIRONMENT:
        return (
            f"Now: from environment. {slot.env_var}_<PROFILE> of a profile for this very "
            f"{'project' if slot.project is not None else 'account'} is set and wins over "
            "the keyring."
        )
    if reading.from_environment:
        return (
            f"Now: {reading.label}. {slot.env_var} is set and wins over the keyring, for "
            f"every {'project' if slot.project is not None else 'account'}: it can be only "
            f"one's. {slot.env_var}_<PROFILE> ties a token to one profile."
        )
    return f"Now: missing. Nothing in the keyring and {slot.env_var} is not set."


def token_problem(value: str) -> str | None:
    """Why ``value`` cannot be a token (never quoting it), or None."""
    text = value.strip()
    if not text:
        return None
    if first_forbidden_char(text) is not None:
        return "contains a control character: a token is plain text"
    if any(ch.isspace() for ch in text):
        return "contains a blank: a token is one word"
    return None


#: Rows the token dialog needs besides the keyring problem's box (title, words,
#: field, buttons, frame).
PROBLEM_ROWS_LEFT = 16


class TokenDialog(_Dialog):
    """Store, replace or delete the token of one slot.

    Dismisses with the slot's new :class:`TokenState` after a change, or
    ``None`` when nothing changed.

    Args:
        slot: Which token.
        reading: What is known of its state now.
        save: Stores a wrapped token (runs in a daemon thread).
        delete: Deletes the stored token (runs in a daemon thread).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Cancel", id="token.cancel"),
    ]

    def __init__(
        self, slot: Slot, reading: Reading | None, *, save: SaveToken, delete: DeleteToken
    ) -> None:
        super().__init__()
        self._slot = slot
        self._reading = reading
        self._save = save
        self._delete = delete
        self._busy = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(slot_title(self._slot), classes="dialog-title", id="token-title")
            yield Static(Content(slot_use(self._slot)), id="token-use")
            yield Static(Content(state_words(self._slot, self._reading)), id="token-state")
            yield FormField(
                "New token",
                SecretInput(id="token-value", placeholder="paste or type it", compact=True),
                hint="Shown as dots; only the keyring gets it.",
                id="field-token",
            )
            with VerticalScroll(id="token-problem"):
                yield Static("", id="token-problem-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="token-cancel", classes="closes")
                yield Button("Delete stored", id="token-delete", variant="error")
                yield Button("Store in keyring", id="token-store", variant="primary")

    def on_resize(self) -> None:
        # The remedies get the rows the rest of the dialog leaves (its box is
        # at most 90% of the screen): all of them at 100x30, and they scroll
        # at 80x24 with the buttons still in view.
        box = self.query_one("#token-problem", VerticalScroll)
        box.styles.max_height = max(5, int(self.size.height * 0.9) - PROBLEM_ROWS_LEFT)
        self.call_after_refresh(self._say_more)

    def _say_more(self) -> None:
        box = self.query_one("#token-problem", VerticalScroll)
        box.border_subtitle = "more below: Tab here, then ↓" if box.max_scroll_y > 0 else ""

    def on_mount(self) -> None:
        self._show_problem(self._reading if isinstance(self._reading, KeyringUnavailable) else None)
        self._update_buttons()
        self.query_one("#token-value", SecretInput).focus()

    # -- state ---------------------------------------------------------------------

    def _value_ok(self) -> bool:
        value = self.query_one("#token-value", SecretInput).value
        return bool(value.strip()) and token_problem(value) is None

    def _update_buttons(self) -> None:
        self.query_one("#token-store", Button).disabled = self._busy or not self._value_ok()
        # Deleting is offered unless we know there is nothing stored.
        nothing = self._reading is TokenState.MISSING or (
            isinstance(self._reading, TokenState) and self._reading.from_environment
        )
        self.query_one("#token-delete", Button).disabled = self._busy or nothing

    def _show_problem(self, error: KeyringUnavailable | None, *, lead: str = "") -> None:
        box = self.query_one("#token-problem", VerticalScroll)
        box.display = error is not None
        if error is None:
            return
        text = error_line(lead, error, sep=".\n", keep_newlines=True)
        self.query_one("#token-problem-text", Static).update(text)
        self.call_after_refresh(self._say_more)

    @on(Input.Changed, "#token-value")
    def _changed(self, event: Input.Changed) -> None:
        problem = token_problem(event.value)
        field = self.query_one("#field-token", FormField)
        field.show_error(Content(problem) if problem else None)
        self._update_buttons()

    @on(Input.Submitted, "#token-value")
    @on(Button.Pressed, "#token-store")
    def _store_asked(self) -> None:
        if self._value_ok() and not self._busy:
            self._store()

    # -- store -------------------------------------------------------------------

    def _store(self) -> None:
        field = self.query_one("#token-value", SecretInput)
        token = self._slot.wrap(field.value)
        # The field is cleared before the keyring is even asked: the wrapper
        # in the worker below is the only copy left.
        field.forget()
        self._run(self._save_worker(token), "storing a token")

    async def _save_worker(self, token: Secret) -> None:
        try:
            state = await self._save(token)
        except KeyringUnavailable as exc:
            self._show_problem(exc, lead="Nothing was stored. ")
            return
        self._finish(state)

    # -- delete ------------------------------------------------------------------

    @on(Button.Pressed, "#token-delete")
    def _delete_pressed(self) -> None:
        body = join(
            "Delete the ",
            Content(self._slot.label),
            " that the keyring holds? Calls that need it will fail until another is stored.",
        )

        def decided(ok: bool | None) -> None:
            if ok:
                self._run(self._delete_worker(), "deleting a token")

        self.app.push_screen(
            ConfirmDialog(
                "Delete stored token?", join(slot_title(self._slot), "\n\n", body), "Delete"
            ),
            decided,
        )

    async def _delete_worker(self) -> None:
        try:
            removed, state = await self._delete()
        except KeyringUnavailable as exc:
            self._show_problem(exc, lead="Nothing was deleted. ")
            return
        if not removed:
            self.app.notify("No token was stored.", markup=False)
        self._finish(state)

    # -- plumbing ------------------------------------------------------------------

    def _finish(self, state: TokenState) -> None:
        # Not from inside the worker: dismissing cancels this screen's workers.
        # (A plain function: call_later awaits what it calls, and awaiting
        # dismiss from the screen's own handler is an error.)
        def close() -> None:
            self.dismiss(state)

        self.call_later(close)

    def _run(self, work: Awaitable[None], label: str) -> None:
        services = services_of(self)

        async def run() -> None:
            self._busy = True
            self._update_buttons()
            try:
                with services.working(label):
                    try:
                        await work
                    except Exception as exc:  # anything else goes to the one error renderer
                        services.report(exc)
            finally:
                self._busy = False
                if self.is_attached:
                    self._update_buttons()

        self.run_worker(run(), name=label, exit_on_error=False)


def ask_token(
    host: Screen[None],
    slot: Slot,
    known: TokenState | KeyringUnavailable | None,
    changed: Callable[[str, TokenState], None],
) -> None:
    """Open the token dialog for ``slot``; ``changed(base_url, state)`` after a save or delete."""
    services = services_of(host)
    session = services.session
    try:
        base = session.base_url
    except EXPECTED_ERRORS as exc:
        services.report(exc)
        return
    tokens = session.tokens

    async def save(token: Secret) -> TokenState:
        return await store_token(tokens, base, slot, token)

    async def delete() -> tuple[bool, TokenState]:
        return await delete_token(tokens, base, slot)

    def done(state: TokenState | None) -> None:
        if state is not None:
            changed(base, state)

    host.app.push_screen(TokenDialog(slot, known, save=save, delete=delete), done)


def checked_words(readings: dict[Slot, Reading]) -> tuple[str, bool]:
    """What ``k`` found, in one sentence, and whether the keyring failed for any slot."""
    counts: dict[str, int] = {}
    failed = 0
    for reading in readings.values():
        if isinstance(reading, KeyringUnavailable):
            failed += 1
        else:
            counts[reading.value] = counts.get(reading.value, 0) + 1
    parts = [
        f"{counts[state.value]} {state.value}" for state in TokenState if state.value in counts
    ]
    if failed:
        parts.append(f"{failed} unreadable: keyring unavailable (see the notice)")
    n = len(readings)
    head = f"Checked {n} token{'s' if n != 1 else ''} again"
    return (f"{head}: {', '.join(parts)}." if parts else f"{head}."), bool(failed)


def tell_checked(screen: Screen[Any], *, redraw: Callable[[], None]) -> None:
    """After ``k`` started the check: ``redraw`` ("checking…"), and say what it found.

    Reading the keyring may take a while (a locked keyring, a prompt): the
    words come when the screen's token worker (group ``tokens``) ends.
    """
    redraw()
    running = [w for w in screen.app.workers if w.node is screen and w.group == "tokens"]
    if not running or running[-1].is_finished:
        screen.notify("No token to check: the inventory lists no project.", markup=False)
        return
    worker = running[-1]
    screen.notify("Checking every token again…", markup=False, timeout=3)

    async def wait() -> None:
        try:
            readings = await worker.wait()
        except Exception:  # its own failure is reported by the screen
            return
        words, failed = checked_words(readings)
        screen.notify(
            words,
            title="Tokens checked",
            severity="warning" if failed else "information",
            markup=False,
        )

    screen.run_worker(wait(), name="tokens checked", group="tokens-told", exit_on_error=False)

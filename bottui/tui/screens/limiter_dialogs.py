"""Dialogs of the Rate limiters screen: choose a state, add a limiter id.

Both open with focus where a stray Enter does nothing harmful: the state
choice on **Cancel** (it leads to a change), the add dialog in its id field
(adding an id to the inventory sends nothing).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import path_id
from bottui.ops.inventory_edits import check_limiter_name
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import join, safe, safe_id


class ChooseStateDialog(_Dialog):
    """The limiter's state is unknown: enable or disable? Returns True, False or None.

    bottui does not guess the opposite of a state it does not know; the
    operator says which state to send.
    """

    def __init__(self, limiter_id: str, limiter_name: str | None, project_id: str) -> None:
        super().__init__()
        self._limiter_id = limiter_id
        self._limiter_name = limiter_name
        self._project_id = project_id

    def compose(self) -> ComposeResult:
        name = join(" (", safe(self._limiter_name), ")") if self._limiter_name else Content("")
        with Vertical():
            yield Label(Content("Rate limiter state unknown"), classes="dialog-title")
            yield Static(
                join(
                    "bottui does not know whether rate limiter ",
                    safe_id(self._limiter_id),
                    name,
                    " of project ",
                    safe_id(self._project_id),
                    " is on or off. Enable or disable it?",
                ),
                id="choose-body",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Enable (ON)", id="enable", variant="warning")
                yield Button("Disable (OFF)", id="disable", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#enable")
    def _enable(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#disable")
    def _disable(self) -> None:
        self.dismiss(False)


class AddLimiterDialog(_Dialog):
    """Add a rate limiter id (and optional name) to the inventory.

    Returns ``(id, name or None)`` or None. Nothing is sent to the service:
    the API cannot list limiters, so the operator teaches bottui the ids.
    """

    def __init__(self, project_id: str) -> None:
        super().__init__()
        self._project_id = project_id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Add a rate limiter id"), classes="dialog-title")
            yield Static(
                join(
                    "To project ",
                    safe_id(self._project_id),
                    ". Only the inventory changes; nothing is sent.",
                )
            )
            yield Label(Content("Rate limiter id"))
            yield PlainInput(placeholder="rate_limiter_id", id="limiter-id")
            yield Static("", id="limiter-id-error", classes="field-error")
            yield Label(Content("Name (optional)"))
            yield PlainInput(placeholder="what the team calls it", id="limiter-name")
            yield Static("", id="limiter-name-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Add", id="add", variant="primary", disabled=True)

    def on_mount(self) -> None:
        self.query_one("#limiter-id", Input).focus()
        self._check()

    def _check(self) -> tuple[str, str | None] | None:
        """Validate both fields, show the messages, and return the values if valid."""
        raw_id = self.query_one("#limiter-id", Input).value
        raw_name = self.query_one("#limiter-name", Input).value
        id_error = ""
        if raw_id:
            try:
                path_id("rate limiter id", raw_id)
            except ValidationError as exc:
                id_error = f"Rate limiter id {exc.message}"
        name_error = None
        try:
            check_limiter_name(raw_name)
        except ValidationError as exc:
            name_error = exc.message
        self._show_error("#limiter-id-error", id_error)
        self._show_error("#limiter-name-error", f"Name {name_error}" if name_error else "")
        valid = bool(raw_id) and not id_error and not name_error
        self.query_one("#add", Button).disabled = not valid
        return (raw_id, raw_name or None) if valid else None

    def _show_error(self, selector: str, message: str) -> None:
        error = self.query_one(selector, Static)
        error.update(safe(message))
        error.display = bool(message)

    @on(Input.Changed)
    def _changed(self) -> None:
        self._check()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        # Adding only touches the inventory, so Enter may add when valid.
        values = self._check()
        if values is not None:
            self.dismiss(values)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#add")
    def _add(self) -> None:
        values = self._check()
        if values is not None:
            self.dismiss(values)

"""The Timed screen's question for an extension: how much later (#15).

One duration field, read as it is typed (:class:`DurationField`: a bad
duration is said under it and disables Extend), counted from the timed
change's due time (from now when it is overdue), as
:func:`bottui.ops.timed.extend` counts it. Closes with the duration, or None.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from bottui.tui.change_prompt import Timing
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.screens.duration_field import DurationField
from bottui.tui.widgets.untrusted_text import join, safe

if TYPE_CHECKING:
    from bottui.ops.timed import TimedChange


class ExtendDialog(DurationField, _Dialog):
    """How much later a timed change reverts; closes with a timedelta or None."""

    def __init__(self, timed: TimedChange, due_words: str) -> None:
        super().__init__()
        self._timed = timed
        self._due_words = due_words
        self._timing = Timing(reverts_to=timed.revert_to)

    def compose(self) -> ComposeResult:
        timed = self._timed
        with Vertical():
            yield Label(Content(f"Extend timed change {timed.id}?"), classes="dialog-title")
            yield Static(
                join(
                    safe(timed.what),
                    " reverts to ",
                    safe(timed.revert_to),
                    f" {self._due_words}.\nHow much later (from its due time; "
                    "from now when overdue)?",
                ),
                id="extend-body",
            )
            with Horizontal(classes="dialog-buttons"):
                yield from self._duration_input()
                yield Button("Cancel", id="cancel")
                yield Button("Extend", id="confirm", variant="primary", disabled=True)
            yield from self._duration_line()

    def on_mount(self) -> None:
        self.query_one("#duration", Input).focus()

    def _revert_base(self) -> datetime | None:
        return self._timed.due_at

    def _may_confirm(self) -> bool:
        return self.revert_after is not None and self._duration_ok()

    @on(Input.Changed, "#duration")
    def _typed(self, event: Input.Changed) -> None:
        self._duration_changed(event.value)

    @on(Input.Submitted, "#duration")
    @on(Button.Pressed, "#confirm")
    def _extend(self) -> None:
        if self._may_confirm():
            self.dismiss(self.revert_after)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


__all__ = ["ExtendDialog"]

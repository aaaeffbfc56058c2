"""The duration field of a change's confirmation: a timed change reverts by itself (#15).

Empty by default: the change is then an ordinary one. What is typed is read
with :func:`bottui.ops.durations.parse_duration` as the operator types; a
duration it refuses is said on the line under the buttons and disables the
confirm button (never a traceback, never a toast that hides the field). A
good one says when the change reverts and to what, and the
:class:`~bottui.tui.change_prompt.Timing`'s notes (no executor known, a
protected profile's revert confirmed now). When a duration cannot be used
(the value before the change is not known) the field is disabled and the
line says why; a revocation has no field, only that line.

Mixed into the two confirmation dialogs (Textual screens): ``query_one`` and
``app`` are the screen's.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Button, Input, Static

from bottui.plaintext import clean
from bottui.tui.widgets.untrusted_text import PlainInput

if TYPE_CHECKING:
    from bottui.tui.change_prompt import Timing


class DurationField:
    """The duration field, its line, and what it adds to the confirm button's state."""

    _timing: Timing | None
    #: The duration confirmed with the change (None: not timed).
    revert_after: timedelta | None = None
    #: Why the typed duration cannot be used ("" when it can, or none is typed).
    duration_error: str = ""
    #: Whether the line under the field says when it reverts (a change's
    #: confirmation says it on its decision line instead).
    _says_when = True

    def _duration_input(self) -> ComposeResult:
        """The field itself, for the buttons' row (beside the reason: no row of its own)."""
        timing = self._timing
        if timing is None or not timing.offered:
            return
        field = PlainInput(placeholder="For e.g. 2h", id="duration", max_length=24)
        field.disabled = bool(timing.unavailable)
        field.tooltip = "Revert by itself after this long: 90s, 30m, 2h, 1d, 1h30m (at most 7d)"
        yield field

    def _buttons_classes(self) -> str:
        """The buttons' row: ``-timed`` (narrower buttons) when it holds the field."""
        timing = self._timing
        return "dialog-buttons" + (" -timed" if timing is not None and timing.offered else "")

    def _duration_line(self) -> ComposeResult:
        """The line under the buttons: why no duration, the error, or when it reverts."""
        timing = self._timing
        if timing is None:
            return
        line = Static(Content(timing.unavailable), id="duration-line", classes="duration-line")
        line.display = bool(timing.unavailable)
        yield line

    def _duration_changed(self, value: str) -> None:
        """Read the typed duration; say what it means or what is wrong with it."""
        from bottui.ops.durations import parse_duration

        line: Static = self.query_one("#duration-line", Static)  # type: ignore[attr-defined]
        field: Input = self.query_one("#duration", Input)  # type: ignore[attr-defined]
        self.revert_after = None
        self.duration_error = ""
        text = value.strip()
        if not text:
            line.display = False
            field.remove_class("-invalid")
            self._sync_confirm()
            return
        try:
            after = parse_duration(text)
        except ValueError as exc:  # the core's words: what is wrong and what is allowed
            self.duration_error = clean(str(exc))
        if self.duration_error:
            field.add_class("-invalid")
            line.set_class(True, "-error")
            line.update(Content(f"Duration not usable: {self.duration_error}"))
            line.display = True
            self._sync_confirm()
            return
        field.remove_class("-invalid")
        line.set_class(False, "-error")
        self.revert_after = after
        words = [self._when_words(after)] if self._says_when else []
        words += self._notes()
        line.update(Content("\n".join(words)))
        line.display = bool(words)
        self._sync_confirm()

    def _when_words(self, after: timedelta) -> str:
        """``Reverts to OFF at 03:30 UTC, in 30m.``"""
        from bottui.ops.durations import duration_text
        from bottui.store.utc import system_clock
        from bottui.tui.services import find_services

        timing = self._timing
        services = find_services(self)  # type: ignore[arg-type]
        clock = services.session.clock if services is not None else None
        now: datetime = (clock or system_clock)()
        base = self._revert_base()
        at = (now if base is None else max(base, now)) + after
        back = f" to {timing.reverts_to}" if timing is not None and timing.reverts_to else ""
        when = at.strftime("%H:%M UTC")
        return f"Reverts{back} at {when}, in {duration_text(at - now)}."

    def _revert_base(self) -> datetime | None:
        """What the duration counts from (None: now); an extension counts from the due time."""
        return None

    def _notes(self) -> list[str]:
        return list(self._timing.notes) if self._timing is not None else []

    def _duration_ok(self) -> bool:
        """False while the typed duration cannot be used (the line says why)."""
        return not self.duration_error

    def _sync_confirm(self) -> None:
        """The confirm button follows every condition (a typed id, a usable duration)."""
        button: Button = self.query_one("#confirm", Button)  # type: ignore[attr-defined]
        button.disabled = not self._may_confirm()

    def _may_confirm(self) -> bool:
        return self._duration_ok()


__all__ = ["DurationField"]

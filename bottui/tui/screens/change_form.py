"""A change's confirmation: a form read top to bottom, and its duration field.

The duration field serves the Timed screen's question for an extension too
(:class:`ExtendDialog`, #15): how much later, read as it is typed (a bad
duration is said under it and disables Extend), counted from the timed
change's due time (from now when it is overdue), as
:func:`bottui.ops.timed.schedule.extend` counts it. Closes with the duration, or None.

The duration field (:class:`DurationField`): a timed change reverts by itself (#15).

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

The form follows CONVENTIONS, "Confirmations". :class:`ChangeForm` is every dialog
that sends a change (a rate limiter, marked limiters, thresholds, an undo, a bulk
run, a playbook run, a timed revert now, a profile's or project's removal): the
facts scroll above a decision line that stays beside the fields and the buttons;
Enter moves down the fields and sends only from the last field of a complete form;
the typed project id of a protected profile is that last field. :class:`ReasonAsked`
is what its reason field asks (the ``require_reason`` check is the form's).
When it closes it arms the app's type-ahead guard (:mod:`bottui.tui.ui_rules`)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from bottui.ops.confirmation import MAX_REASON
from bottui.ops.durations import duration_text, parse_duration
from bottui.plaintext import clean
from bottui.store.utc import system_clock
from bottui.tui import ui_rules
from bottui.tui.change_prompt import Timing
from bottui.tui.screens.base import say
from bottui.tui.screens.dialogs import _Dialog, _listing
from bottui.tui.services import find_services
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe, safe_id

if TYPE_CHECKING:
    from bottui.ops.timed.schedule import TimedChange


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
    #: A one-row field (a change's confirmation: its fields row).
    _compact = False

    def _duration_input(self) -> ComposeResult:
        """The field itself, for the buttons' row (beside the reason: no row of its own)."""
        timing = self._timing
        if timing is None or not timing.offered:
            return
        placeholder, tooltip = self._duration_words()
        field = PlainInput(
            placeholder=placeholder, id="duration", max_length=24, compact=self._compact
        )
        field.disabled = bool(timing.unavailable)
        field.tooltip = tooltip
        yield field

    def _duration_words(self) -> tuple[str, str]:
        """The field's placeholder and tooltip."""
        return (
            "For e.g. 2h",
            "Revert by itself after this long: 90s, 30m, 2h, 1d, 1h30m (at most 7d)",
        )

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

        line: Static = self.query_one("#duration-line", Static)  # type: ignore[attr-defined]
        field: Input = self.query_one("#duration", Input)  # type: ignore[attr-defined]
        self.revert_after = None
        self.duration_error = ""
        words: list[str] = []
        if value.strip():
            try:
                self.revert_after = parse_duration(value.strip())
            except ValueError as exc:  # the core's words: what is wrong and what is allowed
                self.duration_error = clean(str(exc))
                words = [f"Duration not usable: {self.duration_error}"]
            else:
                words = [self._when_words(self.revert_after)] if self._says_when else []
                words += self._notes()
        field.set_class(bool(self.duration_error), "-invalid")
        line.set_class(bool(self.duration_error), "-error")
        say(line, Content("\n".join(words)) if words else None)
        self._sync_confirm()

    def _when_words(self, after: timedelta) -> str:
        """``Reverts to OFF at 03:30 UTC, in 30m.``"""

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
                yield Button("Cancel", id="cancel", classes="closes")
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


class ReasonAsked:
    """What a change's confirmation asks about its reason: whether, and whether required."""

    def __init__(self, *, required: bool = False, refusal: str = "", prefix: str = "") -> None:
        self.required = required
        #: Text the field starts with (an incident id): it alone is no reason.
        self.prefix = prefix
        #: What the dialog says when confirm is pressed without a reason.
        self.refusal = refusal or (
            "This profile requires a reason for every change: type one in the Reason field."
        )

    def is_reason(self, text: str) -> bool:
        """Whether ``text`` says why, beyond the prefilled prefix."""
        words = text.strip()
        prefix = self.prefix.strip()
        if prefix and words.startswith(prefix):
            words = words[len(prefix) :].strip(" :-—")
        return bool(words)


class _Facts(VerticalScroll):
    """What a change's confirmation says above its decision line; scrolls when short."""

    #: Rows given to it by :meth:`ChangeForm._fit` (0: not fitted yet).
    max_rows = 0


class ChangeForm(DurationField, _Dialog):
    """A change's confirmation, read top to bottom as a form (CONVENTIONS, "Confirmations").

    From the top: the title; the facts (the body, a long list, a teammate's
    recent change), which scroll (PageUp/PageDown) when the screen is short;
    then, always in view, the **decision line** (what, before -> after, when
    it reverts, protected), the fields (reason, duration, the typed project
    id last) and the buttons.

    - It opens on its first field when something must be typed (a protected
      profile's project id, a required reason, a duration), else on Cancel.
    - Enter in a field with fields after it moves to the next one (a priority
      key, so keys typed ahead follow the focus). Enter in the last field
      sends only when the form is complete, and never from an empty field;
      otherwise it says what is missing and goes to that field.
    - The confirm button checks the same, so both ways send the same change.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "next_field",
            "Next field; in the last, send a complete form",
            show=False,
            priority=True,
            id="dialog.next_field",
        ),
        Binding(
            "pageup", "scroll_facts(-1)", "Scroll the facts up", show=False, id="dialog.facts_up"
        ),
        Binding(
            "pagedown",
            "scroll_facts(1)",
            "Scroll the facts down",
            show=False,
            id="dialog.facts_down",
        ),
    ]
    DEFAULT_CSS = """
    ChangeForm > Vertical { width: 76; max-width: 100%; max-height: 100%; padding: 0 1; }
    ChangeForm .dialog-title { margin-bottom: 0; }
    ChangeForm #facts { height: auto; max-height: 100%; }
    ChangeForm #recent-changes { margin-top: 0; }
    ChangeForm #decision { text-style: bold; margin-top: 1; }
    ChangeForm .change-row { height: 1; margin-top: 1; }
    ChangeForm .change-row Label { width: auto; padding-right: 1; }
    ChangeForm #fields-row Label { width: 7; }
    ChangeForm .change-row #reason { width: 1fr; }
    ChangeForm .change-row #duration { width: 16; margin-left: 1; }
    ChangeForm #typed { width: 1fr; }
    ChangeForm #typed-row { margin-top: 0; }
    ChangeForm #typed-hint { margin-top: 0; }
    ChangeForm .duration-line { margin-top: 0; }
    """

    def __init__(
        self,
        title: str,
        body: Content,
        confirm_label: str,
        *,
        expected: str | None = None,
        danger: bool = True,
        reason: ReasonAsked | None = None,
        warning: Content | None = None,
        listing: Content | None = None,
        timing: Timing | None = None,
        decision: str | None = None,
    ):
        super().__init__()
        self._title = title
        self._body = body
        self._confirm_label = confirm_label
        self._expected = expected
        self._danger = danger
        #: What the reason field asks (None: no reason field).
        self._asked = reason
        #: The reason typed, once confirmed (None: blank).
        self.reason: str | None = None
        self._warning = warning
        self._listing = listing
        self._timing = timing
        self._decision = decision

    # -- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(self._title), classes="dialog-title")
            with _Facts(id="facts", can_focus=False):
                yield Static(self._body, id="confirm-body")
                yield from _listing(self._listing)
                if self._warning is not None:
                    yield Static(self._warning, id="recent-changes", classes="dialog-warning")
            decision = Static(self._decision_line(), id="decision")
            decision.display = self._decision is not None or self._expected is not None
            yield decision
            if self._asked is not None or self._offers_duration():
                with Horizontal(classes="change-row", id="fields-row"):
                    if self._asked is not None:
                        yield Label(Content("Reason"))
                    yield from self._reason_widgets()
                    yield from self._duration_input()
            if self._expected is not None:
                with Horizontal(classes="change-row", id="typed-row"):
                    yield Label(join("Protected: type ", safe_id(self._expected), " to confirm:"))
                    yield PlainInput(id="typed", compact=True)
            # Said only after an Enter or a press that could not confirm.
            hint = Static("", id="typed-hint", classes="dialog-warning")
            hint.display = False
            yield hint
            yield from self._duration_line()
            # Compact (one row each): at 60x20 the three rows of a framed button
            # pushed them off screen under a timed change's notes.
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel", variant="default", compact=True)
                yield Button(
                    Content(self._confirm_label),
                    id="confirm",
                    variant="error" if self._danger else "primary",
                    disabled=not self._may_confirm(),
                    compact=True,
                )

    @property
    def revert_to(self) -> dict[str, Any] | None:
        """The value before, as stated by typing a duration where it is not known."""
        if self.revert_after is None or self._timing is None:
            return None
        return self._timing.stated

    #: When it reverts is on the decision line; the duration's line keeps the notes.
    _says_when = False
    _compact = True

    def _offers_duration(self) -> bool:
        return self._timing is not None and self._timing.offered

    def _reason_widgets(self) -> ComposeResult:
        if self._asked is None:
            return
        yield PlainInput(
            self._asked.prefix,
            placeholder="required" if self._asked.required else "optional, journaled",
            id="reason",
            max_length=MAX_REASON,
            compact=True,
        )

    def _reason_ok(self) -> bool:
        """Keep the typed reason; False (and say why) when one is required and blank."""
        if self._asked is None:
            return True
        field = self.query_one("#reason", Input)
        text = field.value
        self.reason = text if text.strip() else None
        if self._asked.required and not self._asked.is_reason(text):
            field.add_class("-invalid")
            field.focus()
            self.notify(
                self._asked.refusal, title="Reason required", severity="error", markup=False
            )
            return False
        return True

    def on_mount(self) -> None:
        fields = self._fields()
        if fields and self._needs_typing():
            fields[0].focus()
        else:
            self.query_one("#cancel", Button).focus()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """Give the facts what the decision, fields and buttons leave of the screen."""
        if not self.query("#facts"):  # closed meanwhile
            return
        box = self.query_one(Vertical)
        facts = self.query_one("#facts", _Facts)
        fixed = sum(
            child.outer_size.height
            for child in box.children
            if child is not facts and child.display
        )
        chrome = box.styles.gutter.height + 1  # border, padding; the header's row
        room = max(2, self.size.height - chrome - fixed)
        if facts.max_rows != room:
            facts.max_rows = room
            facts.styles.max_height = room
            self.call_after_refresh(self._fit_toasts)

    def _fit_toasts(self) -> None:
        """Toasts stay above the decision line: they never cover the fields or buttons."""
        decision = self.query("#decision")
        if not decision:  # closed meanwhile
            return
        above = decision.first().region.y
        for rack in self.query("ToastRack"):  # Textual's own; by name, not its private module
            rack.styles.max_height = max(0, above - 1)

    def action_scroll_facts(self, direction: int) -> None:
        facts = self.query_one("#facts", VerticalScroll)
        if direction < 0:
            facts.scroll_page_up(animate=False)
        else:
            facts.scroll_page_down(animate=False)

    # -- the decision line ---------------------------------------------------------------

    def _decision_line(self) -> Content:
        parts = [safe(self._decision)] if self._decision else []
        if self.revert_after is not None and self._timing is not None:
            when = self._when_words(self.revert_after).rstrip(".")
            parts.append(Content(when[:1].lower() + when[1:]))
        if self._expected is not None:
            parts.append(Content.styled("PROTECTED", "reverse"))
        return Content(" · ").join(parts)

    def _sync_confirm(self) -> None:
        super()._sync_confirm()
        if self.is_mounted:
            self.query_one("#decision", Static).update(self._decision_line())
            self.call_after_refresh(self._fit)

    # -- the form ---------------------------------------------------------------------

    def _fields(self) -> list[Input]:
        """The fields to fill, top to bottom (a disabled one is not a field)."""
        return [f for f in self.query(Input) if not f.disabled and f.display]

    def _needs_typing(self) -> bool:
        """Whether anything must be typed before this change can be sent."""
        required = self._asked is not None and self._asked.required
        timed = self._timing is not None and self._timing.required
        return self._expected is not None or required or timed

    def _typed_ok(self) -> bool:
        return self._expected is None or self.query_one("#typed", Input).value == self._expected

    def _duration_given(self) -> bool:
        """A dialog opened as a timed change wants its duration."""
        timing = self._timing
        return timing is None or not timing.required or self.revert_after is not None

    def _may_confirm(self) -> bool:
        if not self.is_mounted:
            return self._expected is None and not (self._timing and self._timing.required)
        return self._typed_ok() and self._duration_ok() and self._duration_given()

    def _missing(self) -> tuple[str, Input | None] | None:
        """What keeps the form from being sent, and the field to fix (None: complete)."""
        if self._asked is not None:
            field = self.query_one("#reason", Input)
            if self._asked.required and not self._asked.is_reason(field.value):
                return (self._asked.refusal, field)
        if self._offers_duration():
            field = self.query_one("#duration", Input)
            if not self._duration_ok():
                return ("Not confirmed: the duration is not usable (said below).", field)
            if not self._duration_given():
                return ("Not confirmed: type how long the change lasts, e.g. 30m.", field)
        if self._expected is not None and not self._typed_ok():
            return (
                f"Not confirmed: the text typed is not the project id. "
                f"Type exactly {clean(self._expected)}",
                self.query_one("#typed", Input),
            )
        return None

    def field_to_fix(self) -> Input | None:
        """The field that keeps this form from being sent (None: it is complete)."""
        missing = self._missing()
        return None if missing is None else missing[1]

    def _say(self, words: str) -> None:
        say(self.query_one("#typed-hint", Static), Content(words) if words else None)
        self.call_after_refresh(self._fit)

    def action_next_field(self) -> None:
        """Enter: to the next field; in the last one, send a complete form (never an empty one)."""
        fields = self._fields()
        focused = self.focused
        if not isinstance(focused, Input) or focused not in fields:
            raise SkipAction()  # a button: Enter presses it
        index = fields.index(focused)
        if index + 1 < len(fields):
            # At once (Widget.focus waits a turn): keys already queued follow it.
            self.set_focus(fields[index + 1])
            return
        if not focused.value.strip():
            missing = self._missing()
            if missing is None:  # complete, yet Enter in an empty field never sends
                self.query_one("#confirm", Button).focus()
                return
            self._refuse(*missing)
            return
        self._confirm()

    def _refuse(self, words: str, field: Input | None) -> None:
        self._say(words)
        if field is not None:
            field.add_class("-invalid")
            field.focus()
            if field.id == "reason":
                self._reason_ok()  # require_reason's own words, as a toast too

    @on(Input.Changed)
    def _field_changed(self, event: Input.Changed) -> None:
        event.input.remove_class("-invalid")
        if event.input.id == "duration":
            self._duration_changed(event.value)
        elif event.input.id == "typed":
            self._sync_confirm()
            if self._typed_ok():
                self._say("")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        # Reached only when the priority Enter did not take the key (never in
        # practice); the same rule applies.
        event.stop()
        self.action_next_field()

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(False)

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        missing = self._missing()
        if missing is not None:
            self._refuse(*missing)
            return
        if self._reason_ok():
            self.dismiss(True)

    def action_dismiss_dialog(self) -> None:
        # Esc is a deliberate way out, never typed ahead by mistake: the keys after it
        # are the operator's next commands (the window is for Enter and the letters).
        self._escaped = True
        self.dismiss(False)

    _escaped = False

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if not self._escaped:
            ui_rules.arm(self.app)
        return super().dismiss(result)


class ConfirmDialog(ChangeForm):
    """Yes/no for a change. Returns True only when the change is confirmed.

    With ``reason`` it holds a reason field; the text is :attr:`reason` once
    confirmed (None: blank).
    """


class TypedConfirmDialog(ChangeForm):
    """Confirmation for a protected profile: the project id is typed, in the last field."""

    def __init__(
        self, title: str, body: Content, expected: str, confirm_label: str, **options: Any
    ):
        super().__init__(title, body, confirm_label, expected=expected, **options)

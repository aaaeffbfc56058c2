"""One score threshold: a slider and an exact input kept in sync, and its error line.

Moving the slider writes its snapped value into the input. Typing into the
input moves the slider to the nearest position but the typed text stays the
value to send, so ``0.123456789`` is sent exactly so. Validation: a finite
JSON number (:func:`bottui.api.requests.threshold_literal`) within the
project's range; the message sits under the field (:class:`ThresholdField`).

:class:`Slider`, a horizontal slider for a number in a range: keys, click and
drag. Textual 8 ships no slider (the one third-party slider is GPL-3.0 and
integer-only), so this is ours. It draws plain characters that read under
``NO_COLOR`` too (``━━━━●──────``), moves by a fine step on the arrows and a
coarse one on shift+arrows or page up/down, jumps to the ends on Home/End,
and follows the mouse while a button is held down. Values the slider moves
are snapped to its step grid with :class:`Decimal`, so ten fine steps from 0
show ``0.1``, never ``0.10000000000000002``. Setting :attr:`Slider.value`
from code only moves the thumb: it posts nothing, so a form that mirrors an
input into the slider never loops back and overwrites what the operator typed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal
from typing import ClassVar, Final

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import threshold_literal
from bottui.ops.thresholds import within
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe

# -- the slider ------------------------------------------------------------------------

FILLED: Final = "━"
EMPTY: Final = "─"
THUMB: Final = "●"
#: The thumb while the slider has focus: a different glyph, so focus reads without colour.
THUMB_FOCUSED: Final = "◉"
#: Fine steps across the range when no step is given.
DEFAULT_STEPS: Final = 100
#: Fine steps per coarse step when no coarse step is given.
DEFAULT_COARSE: Final = 10


def to_decimal(value: float | int | Decimal) -> Decimal:
    """``value`` as the Decimal its shortest repr spells (0.1 stays 0.1)."""
    if isinstance(value, Decimal):
        return value
    return Decimal(repr(float(value)))


def format_number(value: float | Decimal) -> str:
    """A number without float noise or trailing zeros: 0.30 -> ``0.3``, 10 -> ``10``."""
    number = to_decimal(value).normalize()
    text = format(number, "f")
    return "0" if text in ("-0", "") else text


class Slider(Widget, can_focus=True):
    """A number between ``minimum`` and ``maximum``, moved by keys or the mouse.

    Args:
        value: Where the thumb starts (clamped to the range).
        minimum: The left end.
        maximum: The right end; greater than ``minimum``.
        step: The fine step (default: a hundredth of the range).
        coarse_step: The coarse step (default: ten fine steps); rounded to
            a whole number of fine steps.
        show_value: Draw the value right of the bar.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,down", "step(-1)", "Lower (fine step)", show=False, id="slider.decrease"),
        Binding("right,up", "step(1)", "Raise (fine step)", show=False, id="slider.increase"),
        Binding(
            "shift+left,shift+down,pagedown",
            "step(-1, True)",
            "Lower (coarse step)",
            show=False,
            id="slider.decrease_coarse",
        ),
        Binding(
            "shift+right,shift+up,pageup",
            "step(1, True)",
            "Raise (coarse step)",
            show=False,
            id="slider.increase_coarse",
        ),
        Binding("home", "to_end(False)", "To the minimum", show=False, id="slider.minimum"),
        Binding("end", "to_end(True)", "To the maximum", show=False, id="slider.maximum"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "slider--filled",
        "slider--empty",
        "slider--thumb",
        "slider--value",
    }

    DEFAULT_CSS = """
    Slider {
        height: 1;
        width: 1fr;
        min-width: 8;
        & > .slider--filled { color: $accent; }
        & > .slider--empty { color: $foreground-muted; }
        & > .slider--thumb { color: $foreground; text-style: bold; }
        & > .slider--value { color: $foreground; }
        &:focus > .slider--thumb { color: $accent; text-style: bold reverse; }
        &:disabled { opacity: 0.6; }
    }
    """

    #: Dragging must move the thumb, not start a text selection.
    ALLOW_SELECT: ClassVar[bool] = False

    value: reactive[float] = reactive(0.0)

    @dataclass
    class Changed(Message):
        """The operator moved the slider (never posted for a value set from code).

        ``text`` is the snapped value written without float noise: what a
        form shows for it.
        """

        slider: Slider
        value: float
        text: str

        @property
        def control(self) -> Slider:
            """The slider that changed (for ``@on(Slider.Changed, "#id")``)."""
            return self.slider

    def __init__(
        self,
        value: float = 0.0,
        *,
        minimum: float = 0.0,
        maximum: float = 1.0,
        step: float | None = None,
        coarse_step: float | None = None,
        show_value: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        if not (math.isfinite(minimum) and math.isfinite(maximum) and minimum < maximum):
            raise ValueError("a slider needs finite minimum < maximum")
        self.show_value = show_value
        self._dragging = False
        # The range and steps are fixed: the slider is made again for another range.
        self.minimum, self.maximum = float(minimum), float(maximum)
        self.step, self.coarse_step = step, coarse_step
        self.set_reactive(Slider.value, self._clamp(value))

    # -- the grid ------------------------------------------------------------------

    @property
    def fine(self) -> Decimal:
        """The fine step as an exact Decimal."""
        if self.step is not None and self.step > 0:
            return to_decimal(self.step)
        return (to_decimal(self.maximum) - to_decimal(self.minimum)) / DEFAULT_STEPS

    @property
    def coarse_steps(self) -> int:
        """How many fine steps one coarse step moves."""
        if self.coarse_step is None or self.coarse_step <= 0:
            return DEFAULT_COARSE
        return max(1, int((to_decimal(self.coarse_step) / self.fine).to_integral_value()))

    def snap(self, value: float | Decimal) -> Decimal:
        """The grid point nearest ``value``, clamped to the range."""
        low = to_decimal(self.minimum)
        index = ((to_decimal(value) - low) / self.fine).to_integral_value(ROUND_HALF_UP)
        return self._clamp_decimal(low + index * self.fine)

    def _index(self, rounding: str) -> Decimal:
        position = (to_decimal(self.value) - to_decimal(self.minimum)) / self.fine
        # Off-grid values (typed 0.1234) step to the neighbouring grid point
        # first; the tiny tolerance keeps on-grid values on their own point.
        nudge = Decimal("1e-9") if rounding == ROUND_FLOOR else Decimal("-1e-9")
        return (position + nudge).to_integral_value(rounding)

    def _clamp_decimal(self, value: Decimal) -> Decimal:
        return max(to_decimal(self.minimum), min(to_decimal(self.maximum), value))

    def _clamp(self, value: float) -> float:
        if math.isnan(value):
            return self.minimum
        return max(self.minimum, min(self.maximum, float(value)))

    def validate_value(self, value: float) -> float:
        return self._clamp(value)

    # -- moving (user actions post Changed) ------------------------------------------

    def _move_to(self, target: Decimal) -> None:
        target = self._clamp_decimal(target)
        new = float(target)
        if new == self.value:
            return
        self.value = new
        self.post_message(self.Changed(self, new, format_number(target)))

    def action_step(self, steps: int, coarse: bool = False) -> None:
        """``steps`` fine steps (coarse ones with ``coarse``) up, or down when negative."""
        count = steps * self.coarse_steps if coarse else steps
        index = self._index(ROUND_FLOOR if count > 0 else ROUND_CEILING) + count
        self._move_to(to_decimal(self.minimum) + index * self.fine)

    def action_to_end(self, maximum: bool) -> None:
        """To the right end (``maximum``) or the left one."""
        self._move_to(to_decimal(self.maximum if maximum else self.minimum))

    # -- the mouse -------------------------------------------------------------------

    def value_at(self, x: int) -> Decimal:
        """The snapped value under content column ``x`` (outside the bar: an end)."""
        width = self._bar_width()
        fraction = Decimal(max(0, min(width - 1, x))) / Decimal(max(1, width - 1))
        low, high = to_decimal(self.minimum), to_decimal(self.maximum)
        return self.snap(low + fraction * (high - low))

    def _follow(self, event: events.MouseEvent) -> None:
        self._move_to(self.value_at(event.get_content_offset_capture(self).x))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if self.disabled or event.button != 1:
            return
        event.stop()
        self.focus()
        self._dragging = True
        self.capture_mouse()
        self._follow(event)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            event.stop()
            self._follow(event)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging:
            event.stop()
            self._follow(event)
            self._dragging = False
            self.release_mouse()

    def on_mouse_release(self, _event: events.MouseRelease) -> None:
        # Capture lost some other way (focus moved, screen changed).
        self._dragging = False

    # -- drawing ---------------------------------------------------------------------

    def _label_width(self) -> int:
        if not self.show_value:
            return 0
        decimals = max(0, -self.fine.normalize().as_tuple().exponent)  # type: ignore[operator]
        ends = (to_decimal(self.minimum), to_decimal(self.maximum))
        return max(len(format(end.quantize(Decimal(1).scaleb(-decimals)), "f")) for end in ends)

    def _bar_width(self) -> int:
        label = self._label_width()
        return max(2, self.content_size.width - (label + 1 if label else 0))

    def thumb_column(self) -> int:
        """The content column the thumb is drawn at."""
        width = self._bar_width()
        span = self.maximum - self.minimum
        fraction = (self.value - self.minimum) / span if span > 0 else 0.0
        return round(max(0.0, min(1.0, fraction)) * (width - 1))

    def render(self) -> Content:
        width = self._bar_width()
        thumb = self.thumb_column()
        glyph = THUMB_FOCUSED if self.has_focus else THUMB
        parts: list[Content] = [
            Content.styled(FILLED * thumb, self.get_visual_style("slider--filled", partial=True)),
            Content.styled(glyph, self.get_visual_style("slider--thumb", partial=True)),
            Content.styled(
                EMPTY * (width - thumb - 1), self.get_visual_style("slider--empty", partial=True)
            ),
        ]
        label = self._label_width()
        if label:
            # The label shows what the thumb shows: the value on the step grid.
            text = format_number(self.snap(self.value)).rjust(label)
            parts.append(Content(" "))
            parts.append(Content.styled(text, self.get_visual_style("slider--value", partial=True)))
        return Content.assemble(*parts)


# -- the threshold field ---------------------------------------------------------------


def check_threshold(
    field: str, text: str, minimum: float, maximum: float
) -> tuple[str | None, str | None]:
    """``(literal to send, None)`` for a valid threshold, else ``(None, message)``."""
    try:
        literal = threshold_literal(field, text)
    except ValidationError as exc:
        return None, exc.message
    if not within(literal, minimum, maximum):
        low, high = format_number(minimum), format_number(maximum)
        return None, f"must be between {low} and {high} (the project's range)"
    return literal, None


class ThresholdField(Vertical):
    """Label, slider, exact input and error line of one threshold.

    Args:
        label: Our own words, shown left of the slider.
        field: The field's name in messages ("block threshold").
        text: The starting text of the input (a known literal, or "").
        minimum: The project's lowest threshold.
        maximum: The project's highest threshold.
    """

    DEFAULT_CSS = """
    ThresholdField { height: auto; }
    ThresholdField > .threshold-row { height: 3; }
    ThresholdField .threshold-label { width: 11; padding: 1 1 0 0; }
    ThresholdField Slider { margin: 1 1 0 0; }
    ThresholdField Input { width: 18; }
    ThresholdField > .field-error { display: none; }
    ThresholdField > .field-error.-shown { display: block; }
    """

    @dataclass
    class Changed(Message):
        """The field's text changed (typed, or written by its slider)."""

        field: ThresholdField

        @property
        def control(self) -> ThresholdField:
            """The field that changed."""
            return self.field

    def __init__(
        self,
        label: str,
        field: str,
        text: str,
        *,
        minimum: float,
        maximum: float,
        id: str,
    ) -> None:
        super().__init__(id=id)
        self._label = label
        self._field = field
        self._text = text
        self._minimum = minimum
        self._maximum = maximum
        self.literal: str | None = None
        self.error: str | None = None
        self._validate(text)

    def compose(self) -> ComposeResult:
        start = self._number(self._text)
        with Horizontal(classes="threshold-row"):
            yield Label(Content(self._label), classes="threshold-label")
            yield Slider(
                self._minimum if start is None else start,
                minimum=self._minimum,
                maximum=self._maximum,
                show_value=False,
                id=f"{self.id}-slider",
            )
            yield PlainInput(
                value=self._text,
                placeholder=f"{format_number(self._minimum)} to {format_number(self._maximum)}",
                id=f"{self.id}-input",
            )
        yield Static("", classes="field-error", id=f"{self.id}-error")

    def on_mount(self) -> None:
        self._show_error()

    @property
    def slider(self) -> Slider:
        """The slider of this field."""
        return self.query_one(Slider)

    @property
    def input(self) -> Input:
        """The exact input of this field."""
        return self.query_one(Input)

    @property
    def text(self) -> str:
        """What the input holds: the text to send once valid."""
        return self.input.value

    @property
    def valid(self) -> bool:
        """True when the text is a finite number within the range."""
        return self.literal is not None

    @staticmethod
    def _number(text: str) -> float | None:
        try:
            number = float(Decimal(text.strip()))
        except (ArithmeticError, ValueError):
            return None
        return number if math.isfinite(number) else None

    def _validate(self, text: str) -> None:
        self.literal, self.error = check_threshold(self._field, text, self._minimum, self._maximum)

    def _show_error(self) -> None:
        label = self.query_one(f"#{self.id}-error", Static)
        label.update(join(self._label, ": ", safe(self.error)) if self.error else "")
        label.set_class(self.error is not None, "-shown")

    @on(Slider.Changed)
    def _slider_moved(self, event: Slider.Changed) -> None:
        event.stop()
        # The input's own Changed handler validates and re-posts.
        self.input.value = event.text

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._validate(event.value)
        self._show_error()
        number = self._number(event.value)
        if number is not None:
            # From code: the slider moves but posts nothing, so the text stays.
            self.slider.value = number
        self.post_message(self.Changed(self))

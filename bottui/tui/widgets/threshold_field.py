"""One score threshold: a slider and an exact input kept in sync, and its error line.

Moving the slider writes its snapped value into the input. Typing into the
input moves the slider to the nearest position but the typed text stays the
value to send, so ``0.123456789`` is sent exactly so. Validation: a finite
JSON number (:func:`bottui.api.requests.threshold_literal`) within the
project's range; the message sits under the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import threshold_literal
from bottui.ops.threshold_rules import within
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import join, safe
from bottui.tui.widgets.slider import Slider, format_number


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

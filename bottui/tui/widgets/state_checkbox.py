"""A checkbox whose state reads as text: ``[x] Resume`` on, ``[ ] Resume`` off.

Textual's ``Checkbox`` draws ``▐X▌`` both on and off and tells them apart by
colour alone, which NO_COLOR, 16 colours and monochrome lose (and an X reads
as "on" to most people even when it is off). Here the box holds ``x`` or a
space, in bold, so the state survives any palette.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Checkbox


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


__all__ = ["StateCheckbox"]

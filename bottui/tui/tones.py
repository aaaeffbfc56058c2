"""Styles of states that never carry their meaning by colour alone.

Every state (ON/OFF/unknown, outcomes, token states) is told by its words,
then by an attribute (bold, underline); colour only helps. Under NO_COLOR
Textual turns every colour into a grey of the same brightness, and a dark
red or green becomes a grey that vanishes on a dark background (OFF was
colour 237 on 235), so there the colour is left out and the text keeps the
screen's own foreground. Textual tests the variable the same way: set, to
any value, is NO_COLOR (``App.__init__``); it is read at each call, so an
app created after the variable changes follows it.
"""

from __future__ import annotations

import os


def no_color() -> bool:
    """True when NO_COLOR is set (any value), as Textual reads it."""
    return "NO_COLOR" in os.environ


def tone(attributes: str, extra: str) -> str:
    """A Rich style: ``attributes`` always, ``extra`` (colours, dim) only with colour."""
    if no_color():
        return attributes
    return f"{attributes} {extra}".strip()

"""``bottui.tcss`` for the first frame: the other screens' sections blanked out.

The stylesheet is one file in sections, each starting with a comment line
``/* == name: ... == */``, or ``/* == name (a b): ... == */`` for a section
that the screens ``a`` and ``b`` also need on their first frame. Parsing all
of it costs ~7 ms of a cold start (5.7 KB; Textual tokenises about 1 KB a
millisecond), yet the first frame shows one screen and needs only the head
of the file and that screen's sections. So the app starts on
:func:`first_frame_css`, the file with every other section blanked, and puts
:func:`whole_css` in its place under the same source once the first frame
is up (``BottuiApp.on_ready``).

Blanked sections keep their line breaks: a CSS error reported on the first
frame gives the line of the file, as the whole file would.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Final

#: The one stylesheet of the TUI.
CSS_FILE: Final = Path(__file__).with_name("bottui.tcss")

#: Where Textual files the stylesheet's rules (as for an app's ``CSS_PATH``).
CSS_SOURCE: Final = (str(CSS_FILE), "")

_SECTION = re.compile(r"^/\* == (\w+)(?: \(([\w ]+)\))?", re.MULTILINE)


@cache
def whole_css() -> str:
    """The text of ``bottui.tcss``."""
    return CSS_FILE.read_text(encoding="utf-8")


def section_names(css: str | None = None) -> list[str]:
    """The section names of the stylesheet, in file order."""
    return [match[1] for match in _SECTION.finditer(whole_css() if css is None else css)]


@cache
def first_frame_css(screen: str, css: str | None = None) -> str:
    """The stylesheet with the sections ``screen`` does not need blanked (line breaks kept)."""
    text = whole_css() if css is None else css
    starts = [match.start() for match in _SECTION.finditer(text)] + [len(text)]
    parts = [text[: starts[0]]]  # the head: rules every screen uses
    for start, end in pairwise(starts):
        section = text[start:end]
        match = _SECTION.match(section)
        keep = match is not None and screen in (match[1], *(match[2] or "").split())
        parts.append(section if keep else "\n" * section.count("\n"))
    return "".join(parts)

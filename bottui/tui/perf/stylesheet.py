"""The app's stylesheet: parsed once per theme, and small on the first frame.

Textual 8.2.8 re-parses every CSS source from scratch each time a screen is
first shown and each time the theme changes (``Stylesheet.reparse`` builds a
fresh ``Stylesheet`` with an empty parse cache). For bottui that is the
single largest cost between start and first frame: our ``bottui.tcss`` plus
the default CSS of every widget, tokenised again two or three times (about
30 ms of a ~170 ms budget, see ``tests/bench/startup.py``). So the app's
stylesheet is a :class:`~bottui.tui.perf.textual_private.SharedParseStylesheet`,
whose parsed rules survive a re-parse (:func:`start_stylesheet`).

It also starts on the first screen's part of ``bottui.tcss`` only. The file
is in sections, each starting with a comment line ``/* == name: ... == */``,
or ``/* == name (a b): ... == */`` for a section that the screens ``a`` and
``b`` also need on their first frame. Parsing all of it costs ~7 ms of a
cold start (5.7 KB; Textual tokenises about 1 KB a millisecond), yet the
first frame shows one screen and needs only the head of the file and that
screen's sections. So the app starts on :func:`first_frame_css`, the file
with every other section blanked, and puts :func:`whole_css` in its place
under the same source once the first frame is up (:func:`complete_stylesheet`,
from ``BottuiApp.on_ready``). Blanked sections keep their line breaks: a CSS
error reported on the first frame gives the line of the file, as the whole
file would.

Both lean on Textual's private API, kept in :mod:`bottui.tui.perf.textual_private`.
On any Textual other than the one tested there (or one whose private shape
changed) :func:`start_stylesheet` gives Textual's plain ``Stylesheet`` with
the whole ``bottui.tcss`` from the start: a slower start, the same styles.

Tests: ``tests/tui/test_stylesheet_cache.py`` (that fallback styles every
screen exactly as the cache does; no private Textual name outside the
wrapper) and ``tests/tui/test_startup_machinery.py`` (the cache parses as
Textual would; the first frame styles its screen as the whole file does).
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Final

from textual.css.stylesheet import Stylesheet

from bottui.tui.perf.textual_private import SharedParseStylesheet, as_tested

#: The one stylesheet of the TUI.
CSS_FILE: Final = Path(__file__).parent.parent / "bottui.tcss"

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


def start_stylesheet(variables: dict[str, str], mode: str) -> Stylesheet:
    """The stylesheet for an app whose first screen is ``mode``.

    ``variables`` are the app's CSS variables (``App.theme_variables``).
    """
    sheet: Stylesheet
    if as_tested():
        sheet = SharedParseStylesheet(variables=variables)
        # The sections of the other screens are blanked until the first frame
        # is up (complete_stylesheet): they would cost it ~5 ms to parse.
        css = first_frame_css(mode)
    else:
        sheet = Stylesheet(variables=variables)
        css = whole_css()
    sheet.add_source(css, read_from=CSS_SOURCE)
    return sheet


def complete_stylesheet(sheet: Stylesheet) -> None:
    """Put the whole ``bottui.tcss`` in place of the first frame's part of it.

    Under the same source, so its rules keep their place among the sources;
    a no-op when the sheet holds the whole file already. The caller then
    restyles the app (``App.refresh_css``).
    """
    sheet.add_source(whole_css(), read_from=CSS_SOURCE)

"""The app's stylesheet: parsed once per theme, and small on the first frame.

Textual 8.2.8 re-parses every CSS source from scratch each time a screen is
first shown and each time the theme changes (``Stylesheet.reparse`` builds a
fresh ``Stylesheet`` with an empty parse cache). For bottui that is the
single largest cost between start and first frame: our ``bottui.tcss`` plus
the default CSS of every widget, tokenised again two or three times (about
30 ms of a ~170 ms budget, see ``tests/bench/startup.py``). So the app's
stylesheet is a :class:`~bottui.tui.textual_private.SharedParseStylesheet`,
whose parsed rules survive a re-parse, and it starts on the first screen's
part of ``bottui.tcss`` only (:mod:`bottui.tui.css_sections`).

Both lean on Textual's private API, kept in :mod:`bottui.tui.textual_private`.
On any Textual other than the one tested there (or one whose private shape
changed) :func:`start_stylesheet` gives Textual's plain ``Stylesheet`` with
the whole ``bottui.tcss`` from the start: a slower start, the same styles.

Tests: ``tests/tui/test_stylesheet_cache.py`` (that fallback styles every
screen exactly as the cache does; no private Textual name outside the
wrapper) and ``tests/tui/test_startup_machinery.py`` (the cache parses as
Textual would; the first frame styles its screen as the whole file does).
"""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet

from bottui.tui.css_sections import CSS_SOURCE, first_frame_css, whole_css
from bottui.tui.textual_private import SharedParseStylesheet, as_tested

__all__ = ["SharedParseStylesheet", "complete_stylesheet", "start_stylesheet"]


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

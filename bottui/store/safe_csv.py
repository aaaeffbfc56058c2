"""The one cell-safety rule of every CSV file bottui writes.

A CSV file is read by people (``cat results.csv``) and by spreadsheets, so
each cell passes through :func:`cell`:

* no control character nor lone surrogate survives: C0 (newlines, tabs and ESC included), DEL
  and C1 become U+FFFD, so printing the file cannot move the cursor, set the
  window title or clear the screen;
* in text from a server or a journal (the default), bidi controls and line
  separators become U+FFFD too, and a cell starting with ``=``, ``+``, ``-``
  or ``@`` gets a leading ``'``, the usual way to make a spreadsheet show it
  instead of running it as a formula;
* an id (``exact=True``) is written as it was sent: it was validated on the
  way in (no control characters), and a results file fed back as input must
  send the very same ids, so it keeps a leading ``-`` or ``=``.

Numbers stay numbers, ``None`` is an empty cell, objects are compact JSON
(:mod:`bottui.store.safe_json`).
"""

from __future__ import annotations

import re
from typing import Final

from bottui.plaintext import REPLACEMENT, clean, repair_surrogates
from bottui.store import safe_json

FORMULA_START: Final = ("=", "+", "-", "@")
# Cc only (C0, DEL, C1): what an id can never hold once validated.
_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")


def cell(value: object, *, exact: bool = False) -> str | int | float:
    """One CSV cell, safe to print and to open in a spreadsheet (see the module doc)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return value
    # A lone surrogate (an old journal row) cannot be written as UTF-8: U+FFFD.
    text = repair_surrogates(value) if isinstance(value, str) else _json(value)
    if exact:
        return _CONTROL.sub(REPLACEMENT, text)
    text = clean(text)
    return "'" + text if text.startswith(FORMULA_START) else text


def _json(value: object) -> str:
    return safe_json.dumps(value, separators=(",", ":"))


__all__ = ["FORMULA_START", "cell"]

r"""JSON and CSV for people's terminals, files and spreadsheets: nothing in them acts.

:func:`dump`, :func:`dumps` and :func:`iterencode` write JSON whose C1, bidi
and separator characters are escaped; :func:`cell` makes one CSV cell safe
(no control character, no formula). Every JSON document and CSV file bottui
prints or exports goes through here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Final, TextIO

from bottui.plaintext import REPLACEMENT, clean, repair_surrogates

# JSON for people's terminals and files: C1, bidi and separators escaped.
#
# ``json.dump(..., ensure_ascii=False)`` escapes C0 only: C1 controls (xterm
# acts on a UTF-8 U+009B as CSI), the bidi embeddings, overrides and isolates,
# and U+2028/U+2029 would reach stdout or a file raw. Every JSON document bottui
# prints or exports goes through :func:`dump` or :func:`dumps`, which write
# those (and DEL, and any lone surrogate) as ``\\uXXXX`` escapes. Such
# characters only ever occur inside JSON strings, where an escape means the
# same character: ``json.loads`` gives the original strings back.

_UNSAFE: Final = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def iterencode(
    value: Any,
    *,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> Iterator[str]:
    """The JSON text of ``value`` in chunks (a string is never split across two)."""
    encoder = json.JSONEncoder(
        ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys
    )
    for chunk in encoder.iterencode(value):
        yield _UNSAFE.sub(_escape, chunk)


def dumps(
    value: Any,
    *,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """``json.dumps(value, ensure_ascii=False)`` with the unsafe characters escaped.

    Encoded whole (json's C encoder when ``indent`` is None), then escaped in
    one pass: the same text as :func:`iterencode` gives, several times faster
    for the millions of small documents of a journal stream.
    """
    text = json.dumps(
        value, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys
    )
    return _UNSAFE.sub(_escape, text)


def dump(value: Any, out: TextIO, *, indent: int | None = None) -> None:
    """Write ``value`` to ``out`` as it is encoded (a long document streams)."""
    for chunk in iterencode(value, indent=indent):
        out.write(chunk)


# The one cell-safety rule of every CSV file bottui writes.
#
# A CSV file is read by people (``cat results.csv``) and by spreadsheets, so
# each cell passes through :func:`cell`:
#
# * no control character nor lone surrogate survives: C0 (newlines, tabs and ESC included), DEL
#   and C1 become U+FFFD, so printing the file cannot move the cursor, set the
#   window title or clear the screen;
# * in text from a server or a journal (the default), bidi controls and line
#   separators become U+FFFD too, and a cell starting with ``=``, ``+``, ``-``
#   or ``@`` gets a leading ``'``, the usual way to make a spreadsheet show it
#   instead of running it as a formula;
# * an id (``exact=True``) is written as it was sent: it was validated on the
#   way in (no control characters), and a results file fed back as input must
#   send the very same ids, so it keeps a leading ``-`` or ``=``.
#
# Numbers stay numbers, ``None`` is an empty cell, objects are compact JSON
# (:mod:`bottui.store.safe_export`).


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
    return dumps(value, separators=(",", ":"))

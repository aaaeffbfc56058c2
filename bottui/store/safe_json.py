"""JSON for people's terminals and files: C1, bidi and separators escaped.

``json.dump(..., ensure_ascii=False)`` escapes C0 only: C1 controls (xterm
acts on a UTF-8 U+009B as CSI), the bidi embeddings, overrides and isolates,
and U+2028/U+2029 would reach stdout or a file raw. Every JSON document bottui
prints or exports goes through :func:`dump` or :func:`dumps`, which write
those (and DEL, and any lone surrogate) as ``\\uXXXX`` escapes. Such
characters only ever occur inside JSON strings, where an escape means the
same character: ``json.loads`` gives the original strings back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Final, TextIO

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


__all__ = ["dump", "dumps", "iterencode"]

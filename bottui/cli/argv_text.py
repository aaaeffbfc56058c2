"""Refuse a command line or ``BOTTUI_*`` variable that is not valid UTF-8, up front.

Python decodes argv and the environment with ``surrogateescape``: a byte that
is not UTF-8 (``$'p\\xff'``) becomes a lone surrogate (U+DCFF) that travels
silently until something encodes it (a config write, a request header) and
crashes there, possibly after a change was sent. Checking every word before
parsing turns that into one clear refusal (exit 2) naming the argument, with
the bad bytes shown as ``\\xff``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from bottui.api.errors import RefusedError
from bottui.plaintext import clean

#: Variables in bottui's namespace; their values may be tokens, so never shown.
ENV_PREFIX: Final = "BOTTUI_"
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_SHOWN_MAX: Final = 60


class NotUtf8Error(RefusedError):
    """A command-line argument or ``BOTTUI_*`` variable that is not valid UTF-8 (exit 2)."""


def shown(word: str) -> str:
    """``word`` with its undecodable bytes as ``\\xNN``, control characters replaced, cut short."""
    raw = word.encode("utf-8", "surrogateescape") if _is_escaped(word) else None
    text = raw.decode("utf-8", "backslashreplace") if raw is not None else _escape_all(word)
    text = clean(text)
    return text if len(text) <= _SHOWN_MAX else text[: _SHOWN_MAX - 3] + "..."


def _is_escaped(word: str) -> bool:
    """True when every surrogate is one ``surrogateescape`` made (U+DC80-U+DCFF)."""
    return all("\udc80" <= ch <= "\udcff" for ch in _SURROGATE.findall(word))


def _escape_all(word: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", word)


def check_command_line(argv: Sequence[str], environ: Mapping[str, str]) -> None:
    """Raise :class:`NotUtf8Error` for the first argument or variable that is not UTF-8."""
    for position, word in enumerate(argv, start=1):
        if _SURROGATE.search(word):
            raise NotUtf8Error(
                f"command-line argument {position} is not valid UTF-8: {shown(word)}"
            )
    for name in sorted(environ):
        if name.startswith(ENV_PREFIX) and _SURROGATE.search(environ[name]):
            raise NotUtf8Error(
                f"environment variable {shown(name)} is not valid UTF-8 (value not shown)"
            )

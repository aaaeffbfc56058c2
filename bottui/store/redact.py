"""The one redaction every journal record passes through.

:func:`redact` returns a JSON-ready copy of a value in which every object
key named ``serverKey`` (at any depth, in any letter case, also
``server_key``) holds ``"***"``: the rule of :mod:`bottui.api.tokens`,
which masks the excerpts of bodies by the same names. It refuses a token wrapper
(:class:`bottui.api.tokens.Secret`) with :class:`TypeError` wherever it is
found, and any value that is not plain JSON, so nothing can slip into a
file through a ``str()`` of an unexpected object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from bottui.api.tokens import MASK, Secret, is_secret_key

JsonValue = Any  # None | bool | int | float | str | list[JsonValue] | dict[str, JsonValue]


def redact(value: object) -> JsonValue:
    """A JSON-ready copy of ``value`` with every secret key's value masked.

    Keys that are numbers, booleans or null become strings, as ``json`` writes them.

    Raises:
        TypeError: ``value`` holds a token wrapper, or something that is not
            JSON (bytes, a set, a tuple key, an arbitrary object).
        ValueError: a float that is NaN or infinite.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("a journal record cannot hold NaN or an infinity")
        return value
    if isinstance(value, Secret):
        raise TypeError("a token must never be journaled or stored")
    if isinstance(value, Mapping):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if isinstance(item, Secret):
                raise TypeError("a token must never be journaled or stored")
            name = key if isinstance(key, str) else _key_text(key)
            out[name] = MASK if is_secret_key(name) and item is not None else redact(item)
        return out
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    raise TypeError(f"cannot journal a value of type {type(value).__name__}")


def _key_text(key: object) -> str:
    if key is None or isinstance(key, bool | int | float):
        return str(json.dumps(key))
    raise TypeError(f"a journal record's keys are strings, not {type(key).__name__}")


def _refuse(value: object) -> object:
    """``default`` of the encoder: only mappings are converted, tokens refused."""
    if isinstance(value, Secret):
        raise TypeError("a token must never be journaled or stored")
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot journal a value of type {type(value).__name__}")


def _encoder(*, sort_keys: bool) -> Callable[[object], str]:
    """Compact, ASCII-only JSON (a lone surrogate becomes an escape SQLite can store).

    Uses the C encoder directly when there is one: ``JSONEncoder.encode`` builds
    a new one per call, which is half the cost of encoding a small object.
    """
    c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
    if c_make_encoder is None:
        encoder = json.JSONEncoder(
            separators=(",", ":"), allow_nan=False, default=_refuse, sort_keys=sort_keys
        )
        return encoder.encode
    # (markers, default, encoder, indent, key_sep, item_sep, sort_keys, skipkeys, allow_nan)
    make = c_make_encoder(
        None, _refuse, json.encoder.encode_basestring_ascii, None, ":", ",", sort_keys,
        False, False,
    )  # fmt: skip

    def encode(value: object) -> str:
        return "".join(make(value, 0))

    return encode


_ENCODE: Final = _encoder(sort_keys=False)
_ENCODE_SORTED: Final = _encoder(sort_keys=True)
# Text that may hold a secret key; only then is the value walked and masked.
_SECRET_HINT: Final = re.compile(r"server[_-]?key", re.IGNORECASE)


def redacted_json(value: object, *, sort_keys: bool = False) -> str | None:
    """``redact(value)`` as compact JSON text, or None for None.

    Fast path: plain JSON without anything that looks like a secret key is
    encoded once, by the C encoder; otherwise the value is walked and masked.
    With ``sort_keys`` the text is canonical (the same value, the same text).
    """
    if value is None:
        return None
    encode = _ENCODE_SORTED if sort_keys else _ENCODE
    text = encode(value)
    if _SECRET_HINT.search(text) is None:
        return text
    return encode(redact(value))

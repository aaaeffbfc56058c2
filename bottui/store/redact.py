"""The one redaction every journal record passes through.

:func:`redact` returns a JSON-ready copy of a value in which every object
key named ``serverKey`` (at any depth, in any letter case, also
``server_key``) holds ``"***"``. It refuses a token wrapper
(:class:`bottui.api.tokens.Secret`) with :class:`TypeError` wherever it is
found, and any value that is not plain JSON, so nothing can slip into a
file through a ``str()`` of an unexpected object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from bottui.api.tokens import MASK, Secret

#: Key names (compared case-insensitively, without ``_``) whose value is secret.
SECRET_KEYS: Final = frozenset({"serverkey"})

JsonValue = Any  # None | bool | int | float | str | list[JsonValue] | dict[str, JsonValue]


def is_secret_key(key: str) -> bool:
    """True for ``serverKey``, ``server_key``, ``ServerKey`` and the like."""
    return key.replace("_", "").replace("-", "").lower() in SECRET_KEYS


def redact(value: object) -> JsonValue:
    """A JSON-ready copy of ``value`` with every secret key's value masked.

    Raises:
        TypeError: ``value`` holds a token wrapper, or something that is not
            JSON (a non-string key, bytes, a set, an arbitrary object).
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
            if not isinstance(key, str):
                raise TypeError(f"a journal record's keys are strings, not {type(key).__name__}")
            if isinstance(item, Secret):
                raise TypeError("a token must never be journaled or stored")
            out[key] = MASK if is_secret_key(key) and item is not None else redact(item)
        return out
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    raise TypeError(f"cannot journal a value of type {type(value).__name__}")


def redacted_json(value: object) -> str | None:
    """``redact(value)`` as compact JSON text, or None for None."""
    if value is None:
        return None
    # ASCII-only: a lone surrogate in a string becomes an escape SQLite can store.
    return json.dumps(redact(value), separators=(",", ":"), allow_nan=False)


__all__ = ["SECRET_KEYS", "is_secret_key", "redact", "redacted_json"]

"""How journal values are packed into the compact v2 rows, and unpacked exactly.

The v2 schema (:mod:`bottui.store.journal_schema`) keeps per id only what
differs from id to id; everything here is lossless, so a
:class:`~bottui.store.journal_records.JournalEntry` read back equals the one a
v1 file gave:

* times: integer microseconds since the epoch (UTC); a stored text that the
  integer would not give back exactly (only possible in a migrated file) is
  kept next to it and wins;
* item keys: lowercase hex of even length as the bytes it spells (half the
  size, turned back into the same text), anything else as text;
* request bodies that are ``prefix + target + suffix`` (a bulk id's
  ``{"subject": {...}}``): the prefix and suffix once per segment, nothing per id;
* result objects: their key list once (table ``shapes``), per id the JSON
  array of their values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Final

from bottui.store.redact import is_secret_key, redacted_json
from bottui.store.utc import stamp

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_US: Final = timedelta(microseconds=1)
_STAMP: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def micros(moment: datetime) -> int:
    """``moment`` as integer microseconds since the epoch (naive: UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _ONE_US


def from_micros(us: int) -> datetime:
    """The UTC moment ``us`` microseconds after the epoch (what :func:`micros` made)."""
    return _EPOCH + timedelta(microseconds=us)


def time_text(us: int, text: str | None = None) -> str:
    """The stored shape of a time (``text`` when the row kept one)."""
    if text is not None:
        return text
    return stamp(_EPOCH + timedelta(microseconds=us))


def pack_time(text: str) -> tuple[int, str | None]:
    """A stored time text as (microseconds, text kept only if not given back exactly)."""
    if _STAMP.fullmatch(text):
        try:
            # The stored shape, a valid date: time_text gives it back exactly.
            return micros(datetime.fromisoformat(text)), None
        except ValueError:
            return 0, text
    try:
        return micros(datetime.fromisoformat(text.strip())), text
    except ValueError:
        return 0, text


def pack_key(key: str | None) -> str | bytes | None:
    """The stored form of an item key (see the module docstring)."""
    return None if key is None else lookup_key(key)


def lookup_key(key: str) -> str | bytes:
    """The stored form of an explicit or default key, for ``item_states``."""
    if len(key) % 2 or not key:
        return key
    try:
        data = bytes.fromhex(key)
    except ValueError:
        return key
    # fromhex also takes capitals and spaces: only text it gives back exactly.
    return data if data.hex() == key else key


def unpack_key(stored: str | bytes | None) -> str | None:
    """The item key text back from its stored form."""
    if isinstance(stored, bytes):
        return stored.hex()
    return stored


def split_body(body: str | None, target: str) -> tuple[str | None, str | None, str | None]:
    """(prefix, suffix, literal body): the body as ``prefix + target + suffix`` when it is."""
    if body is None:
        return None, None, None
    at = body.find(target)
    if at < 0:
        return None, None, body
    return body[:at], body[at + len(target) :], None


def join_body(
    literal: str | None, prefix: str | None, suffix: str | None, target: str
) -> str | None:
    """The request body text back (inverse of :func:`split_body`)."""
    if prefix is None or literal is not None:
        return literal
    return f"{prefix}{target}{suffix or ''}"


def pack_result(result: Mapping[str, Any] | None) -> tuple[str | None, tuple[str, ...] | None]:
    """(text, keys): a plain object's values as a JSON array and its key list, or
    the redacted JSON text and None (``None``, a secret key at the top, odd keys)."""
    if result is None:
        return None, None
    if type(result) is dict:
        keys = tuple(result)
        if _plain(keys):
            # No top-level secret key: redacting the values is redacting the object.
            return redacted_json(list(result.values())), keys
    return redacted_json(result), None


@lru_cache(maxsize=256)
def _plain(keys: tuple[object, ...]) -> bool:
    """True when every key is a string and none names a secret (cached: a run's
    results share one key list)."""
    return all(type(k) is str and not is_secret_key(k) for k in keys)


@lru_cache(maxsize=256)
def _keys(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


def unpack_result(text: str | None, keys: str | None) -> str | dict[str, Any] | None:
    """The result back: text (parsed by the caller) or the object rebuilt."""
    if text is None or keys is None:
        return text
    try:
        return dict(zip(_keys(keys), json.loads(text), strict=True))
    except (ValueError, TypeError, RecursionError):
        return text  # a damaged row: its text, as the other JSON columns keep theirs


def keys_text(keys: tuple[str, ...]) -> str:
    """A result key list as stored in ``shapes``."""
    text = redacted_json(list(keys))
    assert text is not None
    return text


__all__ = [
    "from_micros",
    "join_body",
    "keys_text",
    "lookup_key",
    "micros",
    "pack_key",
    "pack_result",
    "pack_time",
    "split_body",
    "time_text",
    "unpack_key",
    "unpack_result",
]

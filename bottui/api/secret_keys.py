"""Which members of a server's answer hold a secret, and masking them in any form of a body.

A project object carries its ``serverKey``. Wherever an answer is kept or
shown, that member's value is ``"***"``: in a decoded answer the journal
walks (:func:`bottui.store.redact.redact` uses :func:`is_secret_key`), and
in every *excerpt* of a body quoted in an error — an unexpected status, a
body that is not UTF-8 or not JSON — where :func:`mask_text` masks each
``"key": value`` member whose key is secret, whatever the status, the
encoding or where the body was cut. The same rule, one place.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

#: The mask of a secret value (the same as a token's).
MASK: Final = "***"
#: Key names (compared case-insensitively, without ``_`` and ``-``) whose value is secret.
SECRET_KEYS: Final = frozenset({"serverkey"})

# A JSON member: a quoted key (escapes allowed), its colon, and its value: a
# string (perhaps cut short), or anything up to the next separator.
_MEMBER: Final = re.compile(
    r'"((?:[^"\\]|\\.){1,200})"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s][^,}\]]*)', re.DOTALL
)


def is_secret_key(key: str) -> bool:
    """True for ``serverKey``, ``server_key``, ``ServerKey`` and the like."""
    return key.replace("_", "").replace("-", "").lower() in SECRET_KEYS


def _key(quoted: str) -> str:
    """The key a JSON text names (its escapes decoded when they are valid)."""
    try:
        key = json.loads(f'"{quoted}"')
    except ValueError:
        return quoted
    return key if isinstance(key, str) else quoted


def _masked(match: re.Match[str]) -> str:
    if not is_secret_key(_key(match.group(1))) or match.group(3) == "null":
        return match.group(0)
    return f'"{match.group(1)}"{match.group(2)}"{MASK}"'


def mask_text(text: str) -> str:
    """``text`` (a body, or part of one) with every secret member's value as ``"***"``."""
    if not text:
        return text
    return _MEMBER.sub(_masked, text)


def mask_members(value: Any) -> Any:
    """A decoded JSON value with every secret member's value (not null) as ``"***"``."""
    if isinstance(value, dict):
        return {
            key: (
                MASK
                if isinstance(key, str) and is_secret_key(key) and item is not None
                else mask_members(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_members(item) for item in value]
    return value


__all__ = ["MASK", "SECRET_KEYS", "is_secret_key", "mask_members", "mask_text"]

"""What reading a bulk input yields per line: a :class:`Subject` to send, an
:class:`InvalidLine` never sent, a :class:`Duplicate` of an earlier line; and
the key a subject is journaled under (:func:`subject_key`).

Kept apart from the reader (:mod:`bottui.ops.bulk.input`, which re-exports
them) so each module stays small.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import NamedTuple


class Subject(NamedTuple):
    """One valid line: the identity whose grant to revoke (a named tuple: cheap to make).

    Attributes:
        line: 1-based line number in the input.
        visitor_id: The visitor id, or None.
        user_account_id: The user account id, or None.
        key: 16-byte digest of the pair (deduplication and ``--resume``).
    """

    line: int
    visitor_id: str | None
    user_account_id: str | None
    key: bytes


@dataclass(frozen=True, slots=True)
class InvalidLine:
    """A line that is not sent, and why (``reason`` holds no control characters)."""

    line: int
    reason: str

    def to_json(self) -> dict[str, int | str]:
        """``{"line", "reason"}`` as in the ``--json`` summary."""
        return {"line": self.line, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A valid line repeating the pair of an earlier line (not sent again)."""

    line: int


def subject_key(visitor_id: str | None, user_account_id: str | None) -> bytes:
    """The 16-byte digest of a (visitorId, userAccountId) pair.

    NUL separates the two: validated ids hold no control characters, so two
    different pairs never share the bytes that are hashed.
    """
    data = f"{visitor_id or ''}\x00{user_account_id or ''}".encode()
    return _blake2b(data, digest_size=16).digest()


_blake2b = hashlib.blake2b


__all__ = ["Duplicate", "InvalidLine", "Subject", "subject_key"]

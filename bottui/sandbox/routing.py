"""Routing on the raw request path, so ids arrive exactly as the client sent them.

The decoded ``scope["path"]`` has already turned ``%2F`` into ``/``; here the
raw path is split on ``/`` first and each segment is percent-decoded (UTF-8)
afterwards, so ``a%2Fb`` is the one id ``a/b`` and ``%2E%2E`` is the id ``..``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import unquote_to_bytes


class Operation(StrEnum):
    """The three operations of the API."""

    SET_ACTIVE = "set_rate_limiter_active"
    REVOKE = "revoke_grant"
    THRESHOLDS = "update_dimension_thresholds"


#: Method of each operation.
METHODS: dict[Operation, str] = {
    Operation.SET_ACTIVE: "PATCH",
    Operation.REVOKE: "POST",
    Operation.THRESHOLDS: "PUT",
}


@dataclass(frozen=True)
class Match:
    """A path that names an operation, with its decoded ids."""

    operation: Operation
    account_id: str
    project_id: str
    item_id: str | None = None

    @property
    def method(self) -> str:
        """The one method the operation accepts."""
        return METHODS[self.operation]


def split_raw_path(raw_path: bytes) -> tuple[str, ...]:
    """The percent-decoded segments of a raw path, without the leading empty one.

    Raises ``UnicodeDecodeError`` when a segment does not decode as UTF-8.
    ``b"/a%2Fb/c"`` gives ``("a/b", "c")``; a path not starting with ``/``
    gives its segments as they are (it will match nothing).
    """
    parts = raw_path.split(b"/")
    if parts and parts[0] == b"":
        parts = parts[1:]
    return tuple(unquote_to_bytes(part).decode("utf-8") for part in parts)


def match(segments: tuple[str, ...]) -> Match | None:
    """The operation a path names, or ``None``."""
    if len(segments) < 5 or segments[:2] != ("api", "v1") or segments[3] != "projects":
        return None
    account_id, project_id, rest = segments[2], segments[4], segments[5:]
    if len(rest) == 3 and rest[0] == "rate_limiters" and rest[2] == "active":
        return Match(Operation.SET_ACTIVE, account_id, project_id, rest[1])
    if rest == ("challenges", "grant-revocations"):
        return Match(Operation.REVOKE, account_id, project_id)
    if len(rest) == 2 and rest[0] == "dimension-thresholds":
        return Match(Operation.THRESHOLDS, account_id, project_id, rest[1])
    return None

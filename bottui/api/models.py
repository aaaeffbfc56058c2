"""What the API returns, parsed tolerantly.

The spec's machine-readable schemas are thin (the project's 200 schema has
no properties and its sample is ``{}``; element shapes of ``rateLimits``,
``rules`` and ``order`` are not shown), so every parser here accepts missing
and extra fields, keeps what it cannot interpret in ``raw``, and raises only
:class:`~bottui.api.errors.UnusableBodyError` for a body that is not a JSON
object or holds a known field of an impossible type.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from bottui.api.errors import UnusableBodyError
from bottui.api.tokens import mask_members

SECRET_MASK: Final = "***"
# Keys under which services commonly put an element's id and active flag.
# The spec shows only ``rate_limiter_id`` (path) and ``isActive``.
_ID_KEYS: Final = ("id", "rateLimiterId", "rate_limiter_id", "rateLimitId", "_id", "uuid")
_ACTIVE_KEYS: Final = ("isActive", "active", "enabled", "is_active")
_NAME_KEYS: Final = ("name", "title", "label", "description")


def _str_or_none(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _seq(value: object) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, list) else ()


class RateLimiter(msgspec.Struct, frozen=True):
    """One rate limiter as far as we know it: id, and name and state when known."""

    id: str
    is_active: bool | None = None
    name: str | None = None

    @classmethod
    def from_element(cls, element: object) -> RateLimiter | None:
        """Interpret one element of ``rateLimits.rateLimits``; None if it names no id."""
        if isinstance(element, str) and element:
            return cls(id=element)
        if not isinstance(element, dict):
            return None
        limiter_id = next(
            (
                str(element[k])
                for k in _ID_KEYS
                if isinstance(element.get(k), str | int)
                and not isinstance(element.get(k), bool)
                and str(element[k])
            ),
            None,
        )
        if limiter_id is None:
            return None
        active = next((element[k] for k in _ACTIVE_KEYS if isinstance(element.get(k), bool)), None)
        name = next((element[k] for k in _NAME_KEYS if isinstance(element.get(k), str)), None)
        return cls(id=limiter_id, is_active=active, name=name)


@dataclass(frozen=True)
class Project:
    """A project as the rate limiter operation returns it.

    The fields the faces show and the limiters are read here, each
    ``None``/empty when the body left it out. ``raw`` is the object exactly as
    received, so nothing is lost: the spec's other fields (``customerId``,
    ``rules``, ``phishingInfo``, ``responseExtraFields``, ``createdAt``), which
    bottui only keeps, are there (``to_json`` returns it, with ``serverKey``
    masked unless asked).
    """

    id: str | None = None
    name: str | None = None
    url: str | None = None
    site_key: str | None = None
    server_key: str | None = None
    is_protected: bool | None = None
    rate_limits_order: tuple[Any, ...] = ()
    rate_limits: tuple[Any, ...] = ()
    updated_at: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        # serverKey is a secret: never in a repr (crash reports print locals).
        return f"Project(id={self.id!r}, name={self.name!r}, limiters={len(self.rate_limiters)})"

    @classmethod
    def from_json(cls, data: object) -> Project:
        """Parse a decoded body; any JSON object is a project, possibly empty."""
        if not isinstance(data, dict):
            raise UnusableBodyError(f"expected a JSON object, got {_json_kind(data)}")
        limits = _obj(data.get("rateLimits"))
        protected = data.get("isProtected")
        return cls(
            id=_str_or_none(data, "id"),
            name=_str_or_none(data, "name"),
            url=_str_or_none(data, "url"),
            site_key=_str_or_none(data, "siteKey"),
            server_key=_str_or_none(data, "serverKey"),
            is_protected=protected if isinstance(protected, bool) else None,
            rate_limits_order=_seq(limits.get("order")),
            rate_limits=_seq(limits.get("rateLimits")),
            updated_at=_str_or_none(data, "updatedAt"),
            raw=data,
        )

    @property
    def rate_limiters(self) -> tuple[RateLimiter, ...]:
        """The limiters the project lists, from ``rateLimits`` and its ``order``.

        Elements we cannot read are skipped here (they stay in ``raw``); ids
        that appear only in ``order`` are listed with an unknown state.
        """
        found: dict[str, RateLimiter] = {}
        for element in (*self.rate_limits, *self.rate_limits_order):
            limiter = RateLimiter.from_element(element)
            if limiter is not None and limiter.id not in found:
                found[limiter.id] = limiter
        return tuple(found.values())

    def limiter(self, limiter_id: str) -> RateLimiter | None:
        """The listed limiter with this id, if the project lists it."""
        return next((r for r in self.rate_limiters if r.id == limiter_id), None)

    def to_json(self, *, show_secrets: bool = False) -> dict[str, Any]:
        """The object as received; every ``serverKey`` (any depth, any spelling) is
        ``"***"`` unless ``show_secrets``."""
        if show_secrets:
            return dict(self.raw)
        masked: dict[str, Any] = mask_members(dict(self.raw))
        return masked


class LimiterStateSource(enum.Enum):
    """How we know a limiter's state after a change."""

    RESPONSE = "response"  # the returned project lists it with isActive
    REQUEST = "request"  # the body did not say; the state we sent is the known state


class LimiterChange(msgspec.Struct, frozen=True):
    """The result of setting a rate limiter's active flag."""

    limiter_id: str
    is_active: bool
    source: LimiterStateSource
    project: Project
    status: int = 200
    attempts: int = 1


class RevocationOutcome(enum.Enum):
    """What a revocation did, in the words shown to an operator."""

    WITHDRAWN = "withdrawn"
    NOTHING_STANDING = "nothing was standing"
    UNKNOWN = "unknown"
    UNKNOWN_RETRIED = "unknown (retried)"


class Revocation(msgspec.Struct, frozen=True):
    """The result of a grant revocation.

    ``revoked`` is None when the body did not say. ``retried_ambiguous``
    is set when an earlier attempt may have reached the service (a dropped
    connection, a timeout, a 502/504): a later ``revoked: false`` then only
    says the earlier attempt may have withdrawn it, so the outcome is
    "unknown (retried)".
    """

    revoked: bool | None
    report_id: str | None = None
    grant_expires_at: str | None = None
    grant_remaining_attempts: int | None = None
    retried_ambiguous: bool = False
    status: int = 200
    attempts: int = 1

    @property
    def outcome(self) -> RevocationOutcome:
        """Withdrawn, nothing standing, unknown, or unknown (retried)."""
        if self.revoked is True:
            return RevocationOutcome.WITHDRAWN
        if self.revoked is False:
            return (
                RevocationOutcome.UNKNOWN_RETRIED
                if self.retried_ambiguous
                else RevocationOutcome.NOTHING_STANDING
            )
        return RevocationOutcome.UNKNOWN

    @classmethod
    def from_json(cls, data: object, **meta: Any) -> Revocation:
        """Parse a decoded 200 body; raises UnusableBodyError on impossible types."""
        if not isinstance(data, dict):
            raise UnusableBodyError(f"expected a JSON object, got {_json_kind(data)}")
        fields = {
            attribute: _typed(data, key, kind, words)
            for attribute, (key, kind, words) in _REVOCATION_FIELDS.items()
        }
        return cls(**fields, **meta)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document: ``revoked`` is null when unknown."""
        revoked = None if self.outcome is RevocationOutcome.UNKNOWN_RETRIED else self.revoked
        return {
            "revoked": revoked,
            "reportId": self.report_id,
            "grantExpiresAt": self.grant_expires_at,
            "grantRemainingAttempts": self.grant_remaining_attempts,
            "outcome": self.outcome.value,
        }


class DimensionThresholds(msgspec.Struct, frozen=True):
    """The body of a threshold update, numbers kept as the literals to send.

    ``block`` and ``challenge`` are JSON number literals (validated by
    :func:`bottui.api.requests.threshold_literal`), so a typed
    ``0.123456789`` is sent exactly so.
    """

    name: str
    block: str
    challenge: str

    def body(self) -> bytes:
        """The JSON body with the number literals written verbatim."""
        return (
            '{"name":'
            + json.dumps(self.name)
            + ',"blockThreshold":'
            + self.block
            + ',"challengeThreshold":'
            + self.challenge
            + "}"
        ).encode()

    def record(self) -> dict[str, str]:
        """As the journal and the inventory keep it: the literals as strings."""
        return {
            "name": self.name,
            "blockThreshold": self.block,
            "challengeThreshold": self.challenge,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> DimensionThresholds:
        """The thresholds of a :meth:`record` (as the journal kept them)."""
        return cls(
            name=record["name"],
            block=record["blockThreshold"],
            challenge=record["challengeThreshold"],
        )

    def to_json(self, dimension_id: str) -> dict[str, Any]:
        """The ``--json`` document of ``thresholds set``."""
        return {
            "dimensionId": dimension_id,
            "name": self.name,
            "blockThreshold": json.loads(self.block),
            "challengeThreshold": json.loads(self.challenge),
        }


#: The fields of a revocation's answer: its key, the type it must have, and that type in words.
_REVOCATION_FIELDS: Final[dict[str, tuple[str, type, str]]] = {
    "revoked": ("revoked", bool, "a boolean"),
    "report_id": ("reportId", str, "a string"),
    "grant_expires_at": ("grantExpiresAt", str, "a string"),
    "grant_remaining_attempts": ("grantRemainingAttempts", int, "an integer"),
}


def _typed(data: Mapping[str, Any], key: str, kind: type, words: str) -> Any:
    """``data[key]`` when absent, null or of ``kind`` (a boolean is no integer here)."""
    value = data.get(key)
    if value is not None and (not isinstance(value, kind) or (kind is int and type(value) is bool)):
        raise UnusableBodyError(f"'{key}' should be {words}, got {_json_kind(value)}")
    return value


#: A decoded JSON value's type and its words, bool before int (a boolean is an int too).
_JSON_KINDS: Final = (
    (type(None), "null"),
    (bool, "a boolean"),
    (int | float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
)


def _json_kind(value: object) -> str:
    words = (words for kind, words in _JSON_KINDS if isinstance(value, kind))
    return next(words, type(value).__name__)

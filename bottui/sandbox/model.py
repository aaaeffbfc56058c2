"""The records the sandbox keeps: accounts, projects, limiters, dimensions, grants, tokens.

Plain data with a ``to_json`` where the record goes on the wire. Immutable
records (limiters, dimensions, grants, tokens) are replaced, never changed,
so a copy handed to a test cannot drift while the server runs.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from bottui.sandbox.clock import iso_utc

SCOPE_PROJECT_ACTION: Final = "Project Action"
SCOPE_DIMENSION_THRESHOLDS: Final = "Dimension Thresholds Action"
ALL_SCOPES: Final = frozenset({SCOPE_PROJECT_ACTION, SCOPE_DIMENSION_THRESHOLDS})

SubjectKind = Literal["visitorId", "userAccountId"]
SUBJECT_KINDS: Final[tuple[SubjectKind, ...]] = ("visitorId", "userAccountId")

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Account:
    """An account: holds projects, personal access tokens are bound to it."""

    id: str
    name: str
    customer_id: str


@dataclass(frozen=True)
class RateLimiter:
    """One rate limiting rule of a project."""

    id: str
    name: str
    is_active: bool
    threshold: int = 100
    period: int = 60
    action: str = "challenge"

    def to_json(self) -> JsonObject:
        """The limiter as it appears in ``rateLimits.rateLimits``."""
        return {
            "id": self.id,
            "name": self.name,
            "isActive": self.is_active,
            "threshold": self.threshold,
            "period": self.period,
            "action": self.action,
        }


@dataclass(frozen=True)
class Dimension:
    """A risk dimension and its score thresholds.

    ``*_raw`` keep the JSON text of the last numbers received (``None`` for
    seeded values), so a test can check that ``0.123456789`` arrived verbatim.
    """

    id: str
    name: str
    block_threshold: float
    challenge_threshold: float
    block_threshold_raw: str | None = None
    challenge_threshold_raw: str | None = None

    def to_json(self) -> JsonObject:
        """The dimension as JSON (sandbox views only; the API returns ``{}``)."""
        return {
            "id": self.id,
            "name": self.name,
            "blockThreshold": self.block_threshold,
            "challengeThreshold": self.challenge_threshold,
        }


@dataclass(frozen=True)
class Grant:
    """A standing challenge grant held on one identity of one project."""

    account_id: str
    project_id: str
    kind: SubjectKind
    subject_id: str
    expires_at: float
    remaining_attempts: int

    def to_json(self) -> JsonObject:
        """The grant as JSON (sandbox views)."""
        return {
            "accountId": self.account_id,
            "projectId": self.project_id,
            self.kind: self.subject_id,
            "grantExpiresAt": iso_utc(self.expires_at),
            "grantRemainingAttempts": self.remaining_attempts,
        }


@dataclass(frozen=True)
class Outcome:
    """A recorded challenge outcome report."""

    account_id: str
    project_id: str
    kind: SubjectKind
    subject_id: str
    outcome: str
    at: float
    removed_grant: bool


@dataclass(frozen=True)
class PersonalToken:
    """What a personal access token grants: one account, some scopes. Never the value."""

    account_id: str
    scopes: frozenset[str]
    label: str

    @property
    def kind(self) -> Literal["personal"]:
        """Token kind, as recorded in the request log."""
        return "personal"


@dataclass(frozen=True)
class ProjectApiToken:
    """What a project API token grants: one project of one account. Never the value."""

    account_id: str
    project_id: str
    label: str

    @property
    def kind(self) -> Literal["project"]:
        """Token kind, as recorded in the request log."""
        return "project"


TokenRecord = PersonalToken | ProjectApiToken


@dataclass
class Project:
    """A project with every field of the spec's Project table.

    ``limiters`` and ``dimensions`` keep insertion order; the limiters are
    rendered into ``rateLimits``. Mutable: only :class:`SandboxState` holds
    one, under its lock.
    """

    id: str
    customer_id: str
    name: str
    url: str
    site_key: str
    server_key: str
    is_protected: bool = True
    rules: list[JsonObject] = field(default_factory=list)
    phishing_info: JsonObject = field(
        default_factory=lambda: {"originalUrl": "", "action": "none", "allowedUrls": []}
    )
    response_extra_fields: list[Any] = field(default_factory=list)
    created_at: float = 0.0
    updated_at: float = 0.0
    limiters: dict[str, RateLimiter] = field(default_factory=dict)
    dimensions: dict[str, Dimension] = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        """The project object returned by the rate limiter activation."""
        return {
            "id": self.id,
            "customerId": self.customer_id,
            "name": self.name,
            "url": self.url,
            "siteKey": self.site_key,
            "serverKey": self.server_key,
            "isProtected": self.is_protected,
            "rules": {
                "order": [rule.get("id") for rule in self.rules],
                "rules": copy.deepcopy(self.rules),
            },
            "rateLimits": {
                "order": list(self.limiters),
                "rateLimits": [limiter.to_json() for limiter in self.limiters.values()],
            },
            "phishingInfo": copy.deepcopy(self.phishing_info),
            "responseExtraFields": copy.deepcopy(self.response_extra_fields),
            "updatedAt": iso_utc(self.updated_at),
            "createdAt": iso_utc(self.created_at),
        }

"""The sandbox's state: accounts, projects, limiters, dimensions, grants and tokens.

Thread-safe behind one lock: a test changes it from its own thread while
uvicorn serves from another. Readers get copies or immutable records.
Token values are never stored: the state keeps a SHA-256 digest of each.
"""

from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from bottui.sandbox.clock import Clock, SystemClock, iso_utc
from bottui.sandbox.model import (
    ALL_SCOPES,
    Account,
    Dimension,
    Grant,
    JsonObject,
    Outcome,
    PersonalToken,
    Project,
    ProjectApiToken,
    RateLimiter,
    SubjectKind,
    TokenRecord,
)
from bottui.sandbox.recorder import Recorder

GrantKey = tuple[str, str, SubjectKind, str]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SandboxState:
    """Everything the emulated service knows, plus the request counters.

    Args:
        clock: Where time comes from (grant expiry, ``updatedAt``).
        seed: Seeds the generator of ``reportId`` values, so runs repeat.
        error_message: When set, every API error answers with this
            ``message`` (the hostile demo uses it).
    """

    def __init__(
        self, clock: Clock | None = None, *, seed: int = 0, error_message: str | None = None
    ) -> None:
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.recorder = Recorder()
        self.error_message = error_message
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._accounts: dict[str, Account] = {}
        self._projects: dict[tuple[str, str], Project] = {}
        self._grants: dict[GrantKey, Grant] = {}
        self._tokens: dict[str, TokenRecord] = {}
        self._outcomes: list[Outcome] = []

    # ----------------------------------------------------------------- setup

    def add_account(
        self, account_id: str, name: str | None = None, customer_id: str | None = None
    ) -> Account:
        """Add (or replace) an account."""
        account = Account(account_id, name or account_id, customer_id or f"cus_{account_id}")
        with self._lock:
            self._accounts[account_id] = account
        return account

    def add_project(
        self,
        account_id: str,
        project_id: str,
        name: str | None = None,
        *,
        url: str | None = None,
        site_key: str | None = None,
        server_key: str | None = None,
        is_protected: bool = True,
        rules: Iterable[JsonObject] = (),
        phishing_info: JsonObject | None = None,
        response_extra_fields: Iterable[Any] = (),
        created_at: float | None = None,
        updated_at: float | None = None,
    ) -> None:
        """Add (or replace) a project of an existing account."""
        with self._lock:
            account = self._account(account_id)
            now = self.clock.now()
            url = url if url is not None else f"https://{project_id}.example.com"
            self._projects[(account_id, project_id)] = Project(
                id=project_id,
                customer_id=account.customer_id,
                name=name if name is not None else project_id,
                url=url,
                site_key=site_key if site_key is not None else f"site_{self._hex(12)}",
                server_key=server_key if server_key is not None else f"srv_{self._hex(24)}",
                is_protected=is_protected,
                rules=[dict(rule) for rule in rules],
                phishing_info=phishing_info
                if phishing_info is not None
                else {"originalUrl": url, "action": "warn", "allowedUrls": []},
                response_extra_fields=list(response_extra_fields),
                created_at=created_at if created_at is not None else now,
                updated_at=updated_at if updated_at is not None else now,
            )

    def add_rate_limiter(
        self,
        account_id: str,
        project_id: str,
        limiter_id: str,
        name: str | None = None,
        *,
        active: bool = True,
        threshold: int = 100,
        period: int = 60,
        action: str = "challenge",
    ) -> RateLimiter:
        """Add (or replace) a rate limiter of an existing project."""
        limiter = RateLimiter(limiter_id, name or limiter_id, active, threshold, period, action)
        with self._lock:
            self._project(account_id, project_id).limiters[limiter_id] = limiter
        return limiter

    def add_dimension(
        self,
        account_id: str,
        project_id: str,
        dimension_id: str,
        name: str | None = None,
        *,
        block: float = 0.8,
        challenge: float = 0.5,
    ) -> Dimension:
        """Add (or replace) a risk dimension of an existing project."""
        dimension = Dimension(dimension_id, name or dimension_id, block, challenge)
        with self._lock:
            self._project(account_id, project_id).dimensions[dimension_id] = dimension
        return dimension

    def add_personal_token(
        self,
        token: str,
        account_id: str,
        scopes: Iterable[str] = ALL_SCOPES,
        label: str = "personal",
    ) -> None:
        """Accept ``token`` as a personal access token of ``account_id`` with ``scopes``."""
        with self._lock:
            self._account(account_id)
            self._tokens[_digest(token)] = PersonalToken(account_id, frozenset(scopes), label)

    def add_project_token(
        self, token: str, account_id: str, project_id: str, label: str = "project"
    ) -> None:
        """Accept ``token`` as the API token of one project."""
        with self._lock:
            self._project(account_id, project_id)
            self._tokens[_digest(token)] = ProjectApiToken(account_id, project_id, label)

    def remove_token(self, token: str) -> None:
        """Stop accepting ``token`` (a revoked or rotated credential)."""
        with self._lock:
            self._tokens.pop(_digest(token), None)

    # ----------------------------------------------------------------- reads

    def authenticate(self, token: str) -> TokenRecord | None:
        """What ``token`` grants, or ``None`` when unknown."""
        with self._lock:
            return self._tokens.get(_digest(token))

    def accounts(self) -> list[Account]:
        """Every account."""
        with self._lock:
            return list(self._accounts.values())

    def project_ids(self, account_id: str) -> list[str]:
        """Ids of the projects of an account, in insertion order."""
        with self._lock:
            return [pid for (aid, pid) in self._projects if aid == account_id]

    def has_project(self, account_id: str, project_id: str) -> bool:
        """Whether the project exists."""
        with self._lock:
            return (account_id, project_id) in self._projects

    def project_json(self, account_id: str, project_id: str) -> JsonObject | None:
        """The project object as the API returns it, or ``None``."""
        with self._lock:
            project = self._projects.get((account_id, project_id))
            return None if project is None else project.to_json()

    def rate_limiters(self, account_id: str, project_id: str) -> list[RateLimiter]:
        """The limiters of a project, in order."""
        with self._lock:
            return list(self._project(account_id, project_id).limiters.values())

    def rate_limiter(self, account_id: str, project_id: str, limiter_id: str) -> RateLimiter | None:
        """One limiter, or ``None``."""
        with self._lock:
            project = self._projects.get((account_id, project_id))
            return None if project is None else project.limiters.get(limiter_id)

    def dimensions(self, account_id: str, project_id: str) -> list[Dimension]:
        """The dimensions of a project, in order."""
        with self._lock:
            return list(self._project(account_id, project_id).dimensions.values())

    def dimension(self, account_id: str, project_id: str, dimension_id: str) -> Dimension | None:
        """One dimension, or ``None``."""
        with self._lock:
            project = self._projects.get((account_id, project_id))
            return None if project is None else project.dimensions.get(dimension_id)

    def grant(
        self, account_id: str, project_id: str, kind: SubjectKind, subject_id: str
    ) -> Grant | None:
        """The grant standing on one identity now, or ``None``."""
        with self._lock:
            return self._standing((account_id, project_id, kind, subject_id))

    def grants(self, account_id: str | None = None, project_id: str | None = None) -> list[Grant]:
        """Grants standing now, optionally of one account and/or project."""
        with self._lock:
            standing = [self._standing(key) for key in list(self._grants)]
        return [
            g
            for g in standing
            if g is not None
            and (account_id is None or g.account_id == account_id)
            and (project_id is None or g.project_id == project_id)
        ]

    def outcomes(self) -> list[Outcome]:
        """Outcome reports recorded so far."""
        with self._lock:
            return list(self._outcomes)

    # -------------------------------------------------------- API operations

    def set_rate_limiter_active(
        self, account_id: str, project_id: str, limiter_id: str, active: bool
    ) -> JsonObject | None:
        """Set a limiter's flag, bump ``updatedAt``; the project object, or ``None``."""
        with self._lock:
            project = self._projects.get((account_id, project_id))
            if project is None or limiter_id not in project.limiters:
                return None
            limiter = project.limiters[limiter_id]
            project.limiters[limiter_id] = replace(limiter, is_active=active)
            project.updated_at = max(self.clock.now(), project.updated_at)
            return project.to_json()

    def revoke(
        self, account_id: str, project_id: str, visitor_id: str | None, user_account_id: str | None
    ) -> JsonObject:
        """Withdraw the grants standing on the given identities; the 200 body.

        With a grant withdrawn, the body carries the expiry and remaining
        attempts of the visitor grant if one stood, else of the account grant.
        """
        with self._lock:
            withdrawn: list[Grant] = []
            subjects: tuple[tuple[SubjectKind, str | None], ...] = (
                ("visitorId", visitor_id),
                ("userAccountId", user_account_id),
            )
            for kind, subject_id in subjects:
                if subject_id is None:
                    continue
                key: GrantKey = (account_id, project_id, kind, subject_id)
                grant = self._standing(key)
                if grant is not None:
                    del self._grants[key]
                    withdrawn.append(grant)
            body: JsonObject = {"reportId": f"rep_{self._hex(16)}", "revoked": bool(withdrawn)}
            if withdrawn:
                body["grantExpiresAt"] = iso_utc(withdrawn[0].expires_at)
                body["grantRemainingAttempts"] = withdrawn[0].remaining_attempts
            return body

    def update_dimension(
        self,
        account_id: str,
        project_id: str,
        dimension_id: str,
        *,
        name: str,
        block: float,
        challenge: float,
        block_raw: str | None = None,
        challenge_raw: str | None = None,
    ) -> bool:
        """Replace a dimension's name and thresholds; ``False`` when it does not exist."""
        with self._lock:
            project = self._projects.get((account_id, project_id))
            if project is None or dimension_id not in project.dimensions:
                return False
            project.dimensions[dimension_id] = Dimension(
                dimension_id, name, block, challenge, block_raw, challenge_raw
            )
            return True

    # ------------------------------------------------- grants (sandbox only)

    def issue_grant(
        self,
        account_id: str,
        project_id: str,
        kind: SubjectKind,
        subject_id: str,
        *,
        lifetime_seconds: float = 3600.0,
        attempts: int = 3,
    ) -> Grant:
        """Issue (or replace) the grant on one identity."""
        if lifetime_seconds <= 0 or attempts <= 0:
            raise ValueError("a grant needs a positive lifetime and at least one attempt")
        with self._lock:
            self._project(account_id, project_id)
            grant = Grant(
                account_id,
                project_id,
                kind,
                subject_id,
                self.clock.now() + lifetime_seconds,
                attempts,
            )
            self._grants[(account_id, project_id, kind, subject_id)] = grant
            return grant

    def use_attempt(
        self, account_id: str, project_id: str, kind: SubjectKind, subject_id: str
    ) -> Grant | None:
        """Use one attempt; the grant after it (gone at 0), or ``None`` if none stood."""
        key: GrantKey = (account_id, project_id, kind, subject_id)
        with self._lock:
            grant = self._standing(key)
            if grant is None:
                return None
            grant = replace(grant, remaining_attempts=grant.remaining_attempts - 1)
            if grant.remaining_attempts <= 0:
                del self._grants[key]
            else:
                self._grants[key] = grant
            return grant

    def report_outcome(
        self, account_id: str, project_id: str, kind: SubjectKind, subject_id: str, outcome: str
    ) -> Outcome:
        """Record an outcome report; ``FAILED`` removes the grant on the identity."""
        key: GrantKey = (account_id, project_id, kind, subject_id)
        with self._lock:
            removed = False
            if outcome == "FAILED" and self._standing(key) is not None:
                del self._grants[key]
                removed = True
            record = Outcome(
                account_id, project_id, kind, subject_id, outcome, self.clock.now(), removed
            )
            self._outcomes.append(record)
            return record

    # -------------------------------------------------------------- internal

    def _account(self, account_id: str) -> Account:
        try:
            return self._accounts[account_id]
        except KeyError:
            raise KeyError(f"unknown account {account_id!r}") from None

    def _project(self, account_id: str, project_id: str) -> Project:
        try:
            return self._projects[(account_id, project_id)]
        except KeyError:
            raise KeyError(f"unknown project {account_id!r}/{project_id!r}") from None

    def _standing(self, key: GrantKey) -> Grant | None:
        grant = self._grants.get(key)
        if grant is None:
            return None
        if grant.remaining_attempts <= 0 or self.clock.now() >= grant.expires_at:
            del self._grants[key]
            return None
        return grant

    def _hex(self, digits: int) -> str:
        return f"{self._rng.getrandbits(digits * 4):0{digits}x}"

"""What the emulated service knows: its clock, its records, its state and its request log.

- Time: every time the sandbox reads (grant expiry, ``updatedAt``) comes from
  a :class:`Clock`, so a test can move time forward without sleeping
  (:class:`ManualClock`).
- Records: accounts, projects, limiters, dimensions, grants, tokens. Plain
  data with a ``to_json`` where the record goes on the wire. Immutable records
  (limiters, dimensions, grants, tokens) are replaced, never changed, so a
  copy handed to a test cannot drift while the server runs.
- :class:`SandboxState`: thread-safe behind one lock, since a test changes it
  from its own thread while uvicorn serves from another. Readers get copies
  or immutable records. Token values are never stored: the state keeps a
  SHA-256 digest of each.
- :class:`Recorder`: counters and the log of the API requests served, also
  thread-safe. Token values are never recorded: an entry names the token
  kind, owner and label only, and the headers that carry credentials are
  left out.
"""

from __future__ import annotations

import copy
import hashlib
import math
import random
import threading
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, ClassVar, Final, Literal, Protocol, runtime_checkable

import msgspec
from msgspec.structs import replace

from bottui.sandbox import demo_data

# -- time --------------------------------------------------------------------------------

#: Start of a :class:`ManualClock` unless told otherwise: 2026-01-01T00:00:00Z.
MANUAL_EPOCH: Final = 1_767_225_600.0


@runtime_checkable
class Clock(Protocol):
    """Anything that tells the time in epoch seconds."""

    def now(self) -> float:
        """Seconds since the Unix epoch."""
        ...


class SystemClock:
    """The wall clock (:func:`time.time`)."""

    def now(self) -> float:
        """Seconds since the Unix epoch, from the system."""
        return time.time()


class ManualClock:
    """A clock that only moves when told to; safe to move from any thread."""

    def __init__(self, start: float = MANUAL_EPOCH) -> None:
        self._lock = threading.Lock()
        self._now = float(start)

    def now(self) -> float:
        """The current manual time."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (finite, not negative) and return the new time."""
        seconds = float(seconds)
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError("a clock only moves forward by a finite number of seconds")
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, when: float) -> None:
        """Jump to ``when`` (epoch seconds); may move backwards, for tests."""
        with self._lock:
            self._now = float(when)


def iso_utc(when: float) -> str:
    """``when`` (epoch seconds) as ISO 8601 UTC ending in ``Z``.

    Whole seconds are written without a fraction (``2026-01-01T00:00:00Z``),
    anything else with milliseconds (``2026-01-01T00:00:00.250Z``).
    """
    moment = datetime.fromtimestamp(when, UTC)
    spec = "seconds" if moment.microsecond == 0 else "milliseconds"
    return moment.isoformat(timespec=spec).replace("+00:00", "Z")


# -- the records ------------------------------------------------------------------------

SCOPE_PROJECT_ACTION: Final = "Project Action"
SCOPE_DIMENSION_THRESHOLDS: Final = "Dimension Thresholds Action"
ALL_SCOPES: Final = frozenset({SCOPE_PROJECT_ACTION, SCOPE_DIMENSION_THRESHOLDS})

SubjectKind = Literal["visitorId", "userAccountId"]
SUBJECT_KINDS: Final[tuple[SubjectKind, ...]] = ("visitorId", "userAccountId")

JsonObject = dict[str, Any]


class Account(msgspec.Struct, frozen=True):
    """An account: holds projects, personal access tokens are bound to it."""

    id: str
    name: str
    customer_id: str


class RateLimiter(msgspec.Struct, frozen=True):
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


class Dimension(msgspec.Struct, frozen=True):
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


class Grant(msgspec.Struct, frozen=True):
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


class Outcome(msgspec.Struct, frozen=True):
    """A recorded challenge outcome report."""

    account_id: str
    project_id: str
    kind: SubjectKind
    subject_id: str
    outcome: str
    at: float
    removed_grant: bool


class PersonalToken(msgspec.Struct, frozen=True):
    """What a personal access token grants: one account, some scopes. Never the value."""

    account_id: str
    scopes: frozenset[str]
    label: str
    #: Token kind, as recorded in the request log.
    kind: ClassVar[Literal["personal"]] = "personal"


class ProjectApiToken(msgspec.Struct, frozen=True):
    """What a project API token grants: one project of one account. Never the value."""

    account_id: str
    project_id: str
    label: str
    #: Token kind, as recorded in the request log.
    kind: ClassVar[Literal["project"]] = "project"


TokenRecord = PersonalToken | ProjectApiToken


class Project(msgspec.Struct):
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
    rules: list[JsonObject] = msgspec.field(default_factory=list)
    phishing_info: JsonObject = msgspec.field(
        default_factory=lambda: {"originalUrl": "", "action": "none", "allowedUrls": []}
    )
    response_extra_fields: list[Any] = msgspec.field(default_factory=list)
    created_at: float = 0.0
    updated_at: float = 0.0
    limiters: dict[str, RateLimiter] = msgspec.field(default_factory=dict)
    dimensions: dict[str, Dimension] = msgspec.field(default_factory=dict)

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


# -- the request log --------------------------------------------------------------------

#: Request headers never recorded (they carry credentials).
SECRET_HEADERS: Final = frozenset({"x-api-key", "authorization", "cookie", "proxy-authorization"})


class AuthInfo(msgspec.Struct, frozen=True):
    """Who a request authenticated as: token kind, owner, label. Not the token."""

    kind: str
    account_id: str
    project_id: str | None
    label: str


class RequestRecord(msgspec.Struct, frozen=True):
    """One API request as received and answered.

    ``segments`` are the percent-decoded path segments (empty when a segment
    was not UTF-8); ``json`` is the parsed body or ``None`` when the body was
    empty or not JSON; ``status`` is ``None`` until answered; ``fault`` names
    the injected fault that shaped the answer, if any.
    """

    method: str
    raw_path: str
    segments: tuple[str, ...]
    query_string: str
    body: bytes
    json: Any
    content_type: str | None
    headers: tuple[tuple[str, str], ...]
    auth: AuthInfo | None = None
    status: int | None = None
    fault: str | None = None
    dropped: bool = False


class Stats(msgspec.Struct, frozen=True):
    """A snapshot of the counters."""

    requests: int
    in_flight: int
    peak_in_flight: int

    def to_json(self) -> dict[str, int]:
        """The counters as served by ``GET /_sandbox/stats``."""
        return {
            "requests": self.requests,
            "inFlight": self.in_flight,
            "peakInFlight": self.peak_in_flight,
        }


class Recorder:
    """Counts API requests (total, in flight, peak in flight) and logs them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests = 0
        self._in_flight = 0
        self._peak = 0
        self._log: list[RequestRecord] = []

    def begin(self) -> None:
        """A request arrived."""
        with self._lock:
            self._requests += 1
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)

    def end(self, record: RequestRecord) -> None:
        """A request was answered (or dropped): log it."""
        with self._lock:
            self._in_flight -= 1
            self._log.append(record)

    def stats(self) -> Stats:
        """The counters now."""
        with self._lock:
            return Stats(self._requests, self._in_flight, self._peak)

    @property
    def log(self) -> list[RequestRecord]:
        """A copy of the request log, oldest first."""
        with self._lock:
            return list(self._log)

    def last(self) -> RequestRecord:
        """The latest logged request; ``LookupError`` when none."""
        with self._lock:
            if not self._log:
                raise LookupError("no request logged yet")
            return self._log[-1]

    def reset(self) -> None:
        """Zero the total and the peak (to what is in flight now) and clear the log."""
        with self._lock:
            self._requests = 0
            self._peak = self._in_flight
            self._log.clear()


# -- the state ----------------------------------------------------------------------------

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

    def update_dimension(self, account_id: str, project_id: str, dimension: Dimension) -> bool:
        """Replace a dimension (name and thresholds); ``False`` when it does not exist."""
        with self._lock:
            project = self._projects.get((account_id, project_id))
            if project is None or dimension.id not in project.dimensions:
                return False
            project.dimensions[dimension.id] = dimension
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


# -- the demo data set, as a state -------------------------------------------------------


def demo_state(clock: Clock | None = None, hostile: bool = False, *, seed: int = 0) -> SandboxState:
    """A fresh state holding the demo data set (:mod:`bottui.sandbox.demo_data`); with
    ``hostile``, a project whose ids and names carry Rich/Textual markup and terminal
    escapes, and every API error answers ``HOSTILE_ERROR_MESSAGE``."""
    state = SandboxState(
        clock, seed=seed, error_message=demo_data.HOSTILE_ERROR_MESSAGE if hostile else None
    )
    now = state.clock.now()
    acme, globex = demo_data.DEMO_ACCOUNT, demo_data.OTHER_ACCOUNT
    state.add_account(acme, demo_data.DEMO_ACCOUNT_NAME, demo_data.DEMO_CUSTOMER_ID)
    state.add_account(globex, demo_data.OTHER_ACCOUNT_NAME, "cus_globex_01")
    for age, (project_id, name) in enumerate(demo_data.DEMO_PROJECTS.items()):
        url, site_key, server_key = demo_data._PROJECT_DETAILS[project_id]
        state.add_project(
            acme,
            project_id,
            name,
            url=url,
            site_key=site_key,
            server_key=server_key,
            is_protected=project_id != "shop-staging",
            rules=demo_data._RULES,
            phishing_info={"originalUrl": url, "action": "warn", "allowedUrls": [url]},
            response_extra_fields=["botScore"] if project_id == "shop-prod" else [],
            created_at=now - (90 - 20 * age) * demo_data.DAY,
            updated_at=now - (age + 1) * demo_data.HOUR,
        )
        for limiter in demo_data.DEMO_RATE_LIMITERS[project_id]:
            state.add_rate_limiter(
                acme,
                project_id,
                limiter.id,
                limiter.name,
                active=limiter.active,
                threshold=limiter.threshold,
                period=limiter.period,
            )
        for dim in demo_data.DEMO_DIMENSIONS[project_id]:
            state.add_dimension(
                acme, project_id, dim.id, dim.name, block=dim.block, challenge=dim.challenge
            )
        token = demo_data.DEMO_PROJECT_TOKENS[project_id]
        state.add_project_token(token, acme, project_id, f"{project_id} API token")
    for grant in demo_data.DEMO_GRANTS:  # its fields are issue_grant's parameters
        state.issue_grant(acme, **grant._asdict())
    for token, scopes, label in (
        (demo_data.DEMO_ACCESS_TOKEN, ALL_SCOPES, "demo personal token"),
        (
            demo_data.DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION,
            {SCOPE_DIMENSION_THRESHOLDS},
            "demo token without Project Action",
        ),
        (
            demo_data.DEMO_ACCESS_TOKEN_NO_THRESHOLDS,
            {SCOPE_PROJECT_ACTION},
            "demo token without Dimension Thresholds Action",
        ),
    ):
        state.add_personal_token(token, acme, scopes, label=label)
    # The other account: same limiter/dimension ids, so only ownership tells them apart.
    other = demo_data.OTHER_PROJECT
    state.add_project(globex, other, "Globex website", created_at=now - 10 * demo_data.DAY)
    state.add_rate_limiter(globex, other, "rl-login", "Login bursts", active=True)
    state.add_dimension(globex, other, "bot-score", "Bot score")
    state.add_project_token(demo_data.OTHER_PROJECT_TOKEN, globex, other, "globex API token")
    state.add_personal_token(demo_data.OTHER_ACCESS_TOKEN, globex, label="globex personal token")
    if hostile:
        _add_hostile(state, now)
    return state


def _add_hostile(state: SandboxState, now: float) -> None:
    acme, project = demo_data.DEMO_ACCOUNT, demo_data.HOSTILE_PROJECT_ID
    markup, ansi, c1, bidi = (
        demo_data.HOSTILE_MARKUP,
        demo_data.HOSTILE_ANSI,
        demo_data.HOSTILE_C1,
        demo_data.HOSTILE_BIDI,
    )
    state.add_project(
        acme,
        project,
        markup,
        url=f"https://evil.example/{ansi}",
        site_key=f"site_{c1}",
        server_key=f"srv_{ansi}",
        rules=({"id": "rule-x", "name": markup, "action": ansi},),
        phishing_info={"originalUrl": ansi, "action": markup, "allowedUrls": [c1, bidi]},
        response_extra_fields=[ansi],
        created_at=now - 3 * demo_data.DAY,
        updated_at=now - demo_data.HOUR,
    )
    limiter_names = (ansi, c1, bidi)
    for index, (limiter_id, name) in enumerate(
        zip(demo_data.HOSTILE_LIMITER_IDS, limiter_names, strict=True)
    ):
        state.add_rate_limiter(acme, project, limiter_id, name, active=index % 2 == 0)
    for dimension_id, name in zip(demo_data.HOSTILE_DIMENSION_IDS, (markup, c1), strict=True):
        state.add_dimension(acme, project, dimension_id, name, block=0.9, challenge=0.6)
    state.add_project_token(demo_data.HOSTILE_PROJECT_TOKEN, acme, project, "hostile API token")
    hostile_subjects: tuple[tuple[SubjectKind, str], ...] = (
        ("visitorId", demo_data.HOSTILE_VISITOR_ID),
        ("userAccountId", demo_data.HOSTILE_USER_ACCOUNT_ID),
    )
    for kind, subject_id in hostile_subjects:
        state.issue_grant(acme, project, kind, subject_id, lifetime_seconds=demo_data.HOUR)

"""The async client: one per base URL, one method per operation.

Each operation validates its input, builds a :class:`PreparedRequest`, and
sends it with retries inside one total deadline. Every failure leaves as an
error of :mod:`bottui.api.errors`, raised outside the ``except`` block that
caught the httpx exception, so no traceback, ``__context__`` or local
variable of ours leads back to a request whose headers hold the token.

``bottui doctor``'s probe (:func:`probe_api`) is the one request sent without a
token: it asks whether a base URL answers like the API, and can change nothing.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
from decimal import Decimal
from typing import Final, Self

import httpx
import msgspec

from bottui import __version__
from bottui.api.errors import (
    ApiError,
    BottuiError,
    ConnectionFailed,
    ContradictingAnswer,
    DeadlineExceeded,
    ErrorObject,
    RefusedError,
    UnusableBodyError,
)
from bottui.api.models import (
    DimensionThresholds,
    LimiterChange,
    LimiterStateSource,
    Project,
    Revocation,
)
from bottui.api.requests import (
    PreparedRequest,
    TokenKind,
    dimension_name,
    subject,
    threshold_literal,
)
from bottui.api.sending import (
    Answer,
    Failure,
    RetryPolicy,
    SharedPause,
    Timing,
    answered,
    decode,
    describe,
    send_with_retries,
)
from bottui.api.tokens import (
    DEFAULT_ENCODING,
    TOKEN_WORDS,
    AccessToken,
    ProjectToken,
    Secret,
    TokenEncoding,
    check_token,
    header_value,
    remember,
)
from bottui.api.transport import (
    AiohttpTransport,
    BodyTooLarge,
    Resolver,
    Timeouts,
    check_base_url,
    dimension_thresholds_path,
    final_reason,
    grant_revocations_path,
    rate_limiter_active_path,
    read_capped,
)

MAX_BODY_BYTES: Final = 1 << 20
#: The headers every request carries besides the token's. No Accept-Encoding:
#: answers are small, and read as they come (see the transport).
HEADERS: Final = (("User-Agent", f"bottui/{__version__}"), ("Accept", "application/json"))


class ThresholdUpdate(msgspec.Struct, frozen=True):
    """Receipt of a threshold update (the API itself returns nothing)."""

    dimension_id: str
    thresholds: DimensionThresholds
    status: int = 200
    attempts: int = 1


def build_thresholds(
    name: str, block: str | float | Decimal, challenge: str | float | Decimal
) -> DimensionThresholds:
    """Validate a threshold update and keep its numbers as literals to send."""
    return DimensionThresholds(
        name=dimension_name(name),
        block=threshold_literal("block threshold", block),
        challenge=threshold_literal("challenge threshold", challenge),
    )


class BotProtectionClient:
    """Client of one service at one base URL.

    Args:
        base_url: The service root; plain http is refused except on loopback.
        transport: An httpx transport (tests pass ``ASGITransport``); default
            :class:`~bottui.api.transport.AiohttpTransport`, aiohttp's pool.
        policy: Retries and deadline.
        timing: Sleep, clocks and randomness (tests inject fakes).
        max_connections: Size of the keep-alive pool.
        max_body_bytes: A larger answer is an :class:`UnusableBodyError`.
        resolver: How the default transport resolves names (tests map names
            with their own); plain-http hosts must resolve to loopback only.
        token_encoding: How tokens travel in ``X-Api-Key``: as they are
            (``"raw"``) or Base64-encoded (:mod:`bottui.api.tokens`).
    """

    def __init__(
        self,
        base_url: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        policy: RetryPolicy | None = None,
        timing: Timing | None = None,
        max_connections: int = 64,
        max_body_bytes: int = MAX_BODY_BYTES,
        resolver: Resolver | None = None,
        token_encoding: TokenEncoding = DEFAULT_ENCODING,
    ) -> None:
        self.base_url = check_base_url(base_url)
        self.token_encoding: TokenEncoding = token_encoding
        self.policy = policy or RetryPolicy()
        self.timing = timing or Timing()
        self.max_body_bytes = max_body_bytes
        if transport is None:
            transport = AiohttpTransport(max_connections=max_connections, resolver=resolver)
        self._transport = transport
        self._owns_transport = True

    def __repr__(self) -> str:
        return f"BotProtectionClient({self.base_url!r})"

    @property
    def transport(self) -> httpx.AsyncBaseTransport:
        """The transport requests go through."""
        return self._transport

    def with_pool(self, max_connections: int) -> BotProtectionClient:
        """This client with a keep-alive pool of its own (a bulk run's, of its concurrency).

        The same rules, settings and pinned addresses; closing it closes its
        pool only. Over a transport that is not the aiohttp one (a test's),
        the same transport, left open.
        """
        twin = copy.copy(self)
        transport = self._transport
        twin._owns_transport = isinstance(transport, AiohttpTransport)
        if isinstance(transport, AiohttpTransport):
            twin._transport = transport.sibling(max_connections)
        return twin

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool (one of :meth:`with_pool`: its own only)."""
        if self._owns_transport:
            await self._transport.aclose()

    # -- building -----------------------------------------------------------

    def prepare_rate_limiter(
        self, account_id: str, project_id: str, limiter_id: str, is_active: bool
    ) -> PreparedRequest:
        """Validate and build the rate limiter activation request."""
        path = rate_limiter_active_path(account_id, project_id, limiter_id)
        body = json.dumps({"isActive": bool(is_active)}).encode()
        return self._prepared("limiter", "PATCH", path, body, "project")

    def prepare_revocation(
        self,
        account_id: str,
        project_id: str,
        *,
        visitor_id: str | None = None,
        user_account_id: str | None = None,
    ) -> PreparedRequest:
        """Validate and build the grant revocation request (only the ids given)."""
        path = grant_revocations_path(account_id, project_id)
        ids = subject(visitor_id, user_account_id)
        body = json.dumps({"subject": ids}, ensure_ascii=False).encode()
        return self._prepared("revoke", "POST", path, body, "personal")

    def prepare_thresholds(
        self,
        account_id: str,
        project_id: str,
        dimension_id: str,
        thresholds: DimensionThresholds,
    ) -> PreparedRequest:
        """Validate and build the threshold update request."""
        path = dimension_thresholds_path(account_id, project_id, dimension_id)
        # Re-validate: a DimensionThresholds can be built by hand.
        checked = build_thresholds(thresholds.name, thresholds.block, thresholds.challenge)
        return self._prepared("thresholds", "PUT", path, checked.body(), "personal")

    def _prepared(
        self, operation: str, method: str, path: str, body: bytes, token_kind: TokenKind
    ) -> PreparedRequest:
        """The request of ``operation`` at ``path`` of this client's base URL."""
        return PreparedRequest(
            operation, method, self.base_url + path, body, token_kind, self.token_encoding
        )

    # -- operations ---------------------------------------------------------

    async def set_rate_limiter_active(
        self,
        account_id: str,
        project_id: str,
        limiter_id: str,
        is_active: bool,
        token: ProjectToken,
    ) -> LimiterChange:
        """Switch one rate limiter on or off; returns the project the service sent.

        When the project does not list the limiter's state, the state we
        sent is the known state (``source`` says which). When it lists the
        other state, the answer contradicts the request:
        :class:`ContradictingAnswer`.
        """
        request = self.prepare_rate_limiter(account_id, project_id, limiter_id, is_active)
        return await self.send_rate_limiter(request, limiter_id, is_active, token)

    async def send_rate_limiter(
        self, request: PreparedRequest, limiter_id: str, is_active: bool, token: ProjectToken
    ) -> LimiterChange:
        """Send a prepared limiter request (a planned change sends exactly its plan).

        ``limiter_id`` and ``is_active`` must be those ``request`` was prepared
        with: they read the answer (see :meth:`set_rate_limiter_active`).
        """
        answer = await self.send(request, token)
        project = Project.from_json(decode(answer, allow_empty=False))
        listed = project.limiter(limiter_id)
        if listed is not None and listed.is_active is not None:
            if listed.is_active != bool(is_active):
                raise _contradiction(limiter_id, bool(is_active), answer.status)
            state, source = listed.is_active, LimiterStateSource.RESPONSE
        else:
            state, source = bool(is_active), LimiterStateSource.REQUEST
        return LimiterChange(
            limiter_id=limiter_id,
            is_active=state,
            source=source,
            project=project,
            status=answer.status,
            attempts=answer.attempts,
        )

    async def revoke_grant(
        self,
        account_id: str,
        project_id: str,
        token: AccessToken,
        *,
        visitor_id: str | None = None,
        user_account_id: str | None = None,
        pause: SharedPause | None = None,
    ) -> Revocation:
        """Withdraw the grant held on a visitor id and/or a user account id.

        A bulk run sends each id so, sharing one ``pause`` (see :meth:`send`).
        """
        request = self.prepare_revocation(
            account_id, project_id, visitor_id=visitor_id, user_account_id=user_account_id
        )
        return await self.send_revocation(request, token, pause=pause)

    async def send_revocation(
        self, request: PreparedRequest, token: AccessToken, *, pause: SharedPause | None = None
    ) -> Revocation:
        """Send a prepared revocation (bulk runs prepare many, then send).

        ``pause`` is shared by the requests of a bulk run (see :meth:`send`).
        """
        answer = await self.send(request, token, pause=pause)
        return Revocation.from_json(
            decode(answer, allow_empty=False),
            retried_ambiguous=answer.retried_ambiguous,
            status=answer.status,
            attempts=answer.attempts,
        )

    async def update_dimension_thresholds(
        self,
        account_id: str,
        project_id: str,
        dimension_id: str,
        thresholds: DimensionThresholds,
        token: AccessToken,
    ) -> ThresholdUpdate:
        """Replace a dimension's name and thresholds. Accepts ``{}``, empty and 204."""
        request = self.prepare_thresholds(account_id, project_id, dimension_id, thresholds)
        return await self.send_thresholds(request, dimension_id, thresholds, token)

    async def send_thresholds(
        self,
        request: PreparedRequest,
        dimension_id: str,
        thresholds: DimensionThresholds,
        token: AccessToken,
    ) -> ThresholdUpdate:
        """Send a prepared threshold update (``request`` prepared from these values)."""
        answer = await self.send(request, token)
        decode(answer, allow_empty=True)
        return ThresholdUpdate(
            dimension_id=dimension_id,
            thresholds=thresholds,
            status=answer.status,
            attempts=answer.attempts,
        )

    # -- sending ------------------------------------------------------------

    async def send(
        self, request: PreparedRequest, token: Secret, *, pause: SharedPause | None = None
    ) -> Answer:
        """Send with retries within the total deadline; raise on failure.

        Returns the final 2xx answer. Raises :class:`ApiError` for an error
        status, :class:`NetworkError` subclasses when no answer came, and
        :class:`UnusableBodyError` for an oversized body.

        With a ``pause`` (a bulk run shares one among its requests), every
        attempt first waits out the pause, and a 429 (or a 503 with
        ``Retry-After``) extends it by the wait this request takes, so every
        request of the run slows down together. The deadline starts once the
        first wait is over.

        A token that cannot be sent in a header (a line break, a control
        character) is refused first: :class:`~bottui.api.tokens.UnusableToken`,
        nothing sent.
        """
        check_token(token, self.token_encoding)
        if not isinstance(token, ProjectToken if request.token_kind == "project" else AccessToken):
            raise TypeError(f"this operation needs a {TOKEN_WORDS[request.token_kind]}")
        return await send_with_retries(
            functools.partial(self._attempt, request, token), self.policy, self.timing, pause
        )

    async def send_without_token(self, request: PreparedRequest) -> Answer | Failure:
        """One attempt carrying no token at all, never retried (``bottui doctor``'s probe).

        Returns the 2xx :class:`Answer`, or the :class:`Failure` (an
        :class:`ApiError` for an error status, as :meth:`send` would raise).
        """
        return await self._attempt(request, None, self.policy.deadline)

    async def _attempt(
        self, request: PreparedRequest, token: Secret | None, remaining: float
    ) -> Answer | Failure:
        """One attempt. Never raises for transport trouble: returns a Failure."""
        policy = self.policy
        # No "pool" timeout: the whole attempt, waiting for a pooled connection
        # included, is bounded by asyncio.timeout(remaining) below; so the usual
        # timeouts repeat, and the transport makes aiohttp's once.
        timeouts = {
            "connect": min(policy.connect_timeout, remaining),
            "read": min(policy.read_timeout, remaining),
            "write": min(policy.read_timeout, remaining),
        }
        failure: Failure | None = None
        try:
            async with asyncio.timeout(remaining):
                status, retry_after, body = await self._exchange(request, token, timeouts)
        except BodyTooLarge as exc:
            failure = Failure(
                UnusableBodyError(
                    f"the answer is larger than {self.max_body_bytes} bytes", status=exc.status
                ),
                ambiguous=False,
                retryable=False,
            )
        except RefusedError as exc:
            # The transport refused before connecting (plain http to an
            # address that is not loopback). Its traceback runs through
            # frames holding the request: dropped.
            failure = Failure(exc.with_traceback(None), ambiguous=False, retryable=False)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            # Nothing reached the service: safe to retry anything, but a
            # certificate, TLS or DNS failure would only fail again.
            final = final_reason(exc, httpx.URL(request.url).host)
            failure = Failure(
                ConnectionFailed("Could not connect", describe(exc, request, final)),
                ambiguous=False,
                retryable=final is None,
            )
        except (TimeoutError, httpx.TimeoutException):
            failure = Failure(
                DeadlineExceeded("Timed out", "the service did not answer in time"),
                ambiguous=True,
                retryable=True,
            )
        except (httpx.HTTPError, OSError) as exc:
            # Read/write errors and protocol errors (and a transport's own
            # OSError): the request may have been processed before the
            # connection broke.
            failure = Failure(
                ConnectionFailed("Connection lost", describe(exc, request)),
                ambiguous=True,
                retryable=True,
            )
        except Exception as exc:
            # A bug in a transport or library. Never let it out with its
            # traceback: the library's frames hold the request headers, and
            # crash reports print every frame's locals. Name it and stop.
            failure = Failure(
                ConnectionFailed("Unexpected failure in the HTTP transport", type(exc).__name__),
                ambiguous=True,
                retryable=False,
            )
        if failure is not None:
            return failure
        return answered(status, body, retry_after, self.timing)

    async def _exchange(
        self, request: PreparedRequest, token: Secret | None, timeouts: Timeouts
    ) -> tuple[int, str | None, bytes]:
        """Status, ``Retry-After`` and capped body of one request (the headers built inline:
        crash reports print the locals of every frame, and these hold the token)."""
        transport = self._transport
        if isinstance(transport, AiohttpTransport):  # the wire, without httpx's objects
            return await transport.exchange(
                request.method,
                request.url,
                [*HEADERS, *_auth_headers(token, self.token_encoding)],
                request.body,
                timeouts,
                self.max_body_bytes,
            )
        response = await transport.handle_async_request(  # a test's httpx transport
            httpx.Request(
                request.method,
                _parsed_url(request.url),
                headers=[*HEADERS, *_auth_headers(token, self.token_encoding)],
                content=request.body,
                extensions={"timeout": timeouts},
            )
        )
        try:
            status = response.status_code
            body = await read_capped(response.aiter_bytes(), self.max_body_bytes, status)
            return status, response.headers.get("retry-after"), body
        finally:
            await response.aclose()


def _contradiction(limiter_id: str, asked: bool, status: int) -> ContradictingAnswer:
    """The error of an answer listing the limiter in the other state than ``asked``."""
    words = {True: "ON", False: "OFF"}
    return ContradictingAnswer(
        f"HTTP {status}: rate limiter {limiter_id} was asked {words[asked]}, but the returned "
        f"project lists it {words[not asked]}; check its state before repeating",
        status=status,
        context={"rateLimiterId": limiter_id, "asked": asked, "answered": not asked},
    )


@functools.lru_cache(maxsize=256)
def _parsed_url(url: str) -> httpx.URL:
    """``httpx.URL(url)``, parsed once per URL (a bulk run sends one URL many times)."""
    return httpx.URL(url)


def _auth_headers(token: Secret | None, encoding: TokenEncoding) -> list[tuple[str, str]]:
    if token is None:  # the doctor's probe: no credential of any kind
        return [("Content-Type", "application/json")]
    # Built inline in the call so no local variable of ours holds the clear
    # header (crash reports print locals). A token sent is a token in use:
    # whatever the server echoes of it is masked (bottui.api.tokens).
    remember(token.reveal())
    return [("X-Api-Key", header_value(token, encoding)), ("Content-Type", "application/json")]


# -- the doctor's probe: does a base URL answer like the API? -----------------------------------
#
# ``bottui doctor`` sends one ``POST`` to the grant revocation path of a made-up account and
# project, with **no token** and the body ``{}`` (no ``subject``: invalid by the spec's rule
# 1). A service that is the API refuses it with its error object (``message``, ``code``,
# ``type``): a 401 for the missing credential, or a 400 for the body. Nothing can be changed
# by it: no credential, no subject, no real ids. It goes through the client, so the base URL
# is checked, names are resolved and TLS is verified exactly as for a real change.

#: The ids of the probe's path: made up, so no real account's logs show the probe.
PROBE_ACCOUNT: Final = "bottui-doctor"
PROBE_PROJECT: Final = "bottui-doctor"


class ProbeAnswer(msgspec.Struct, frozen=True):
    """What the probe got: an HTTP status (and the error object if any), or a failure.

    Exactly one of ``status`` and ``failure`` is set.
    """

    url: str
    status: int | None = None
    #: The body's error object; ``None`` when the body held none.
    error: ErrorObject | None = None
    #: The head of a body that was not an error object, masked and cleaned.
    excerpt: str = ""
    #: Why no status came: a network error (its text says TLS, DNS, refused, timed out).
    failure: BottuiError | None = None

    @property
    def complete_error_object(self) -> bool:
        """The body held all three required fields of the spec's error object."""
        err = self.error
        return err is not None and bool(err.message) and bool(err.code) and bool(err.type)


async def probe_api(
    base_url: str, *, timeout: float, transport: httpx.AsyncBaseTransport | None = None
) -> ProbeAnswer:
    """Send the probe once (no retry) within ``timeout`` seconds.

    Raises:
        RefusedError: the base URL itself is refused (not a URL, plain http
            off loopback); nothing was sent.
    """
    policy = RetryPolicy(
        max_attempts=1,
        deadline=timeout,
        connect_timeout=min(5.0, timeout),
        read_timeout=timeout,
    )
    async with BotProtectionClient(base_url, transport=transport, policy=policy) as client:
        # POST .../challenges/grant-revocations with {}, sent tokenless.
        path = grant_revocations_path(PROBE_ACCOUNT, PROBE_PROJECT)
        request = client._prepared("probe", "POST", path, b"{}", "personal")
        outcome = await client.send_without_token(request)
    if isinstance(outcome, Answer):
        return ProbeAnswer(request.url, status=outcome.status)
    error = outcome.error
    if isinstance(error, ApiError):
        return ProbeAnswer(
            request.url, status=error.status, error=error.error, excerpt=error.body_excerpt
        )
    return ProbeAnswer(request.url, failure=error)


async def accepts_connections(base_url: str, *, timeout: float) -> bool:
    """Whether the base URL's host accepts a TCP connection within ``timeout`` s.

    Asked after the probe timed out, to tell a slow server (busy, it
    connects) from one that cannot be reached at all. Nothing is sent.
    """
    url = httpx.URL(base_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        async with asyncio.timeout(timeout):
            _reader, writer = await asyncio.open_connection(url.host, port)
    except (OSError, TimeoutError, ValueError):
        return False
    writer.close()
    try:
        async with asyncio.timeout(timeout):
            await writer.wait_closed()
    except (OSError, TimeoutError):
        pass  # connected: how the close went says nothing more
    return True

"""The service layer against the sandbox over real loopback HTTP."""

from __future__ import annotations

import json
import random
import time
import traceback
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from bottui.api.client import BotProtectionClient, build_thresholds
from bottui.api.errors import (
    ApiError,
    BottuiError,
    ConnectionFailed,
    DeadlineExceeded,
    RefusedError,
    UnusableBodyError,
    ValidationError,
)
from bottui.api.models import DimensionThresholds, LimiterStateSource, RevocationOutcome
from bottui.api.sending import RetryPolicy, Timing
from bottui.api.tokens import AccessToken, ProjectToken
from bottui.sandbox import demo_data
from bottui.sandbox.server import SandboxServer

ACC = demo_data.DEMO_ACCOUNT
PROJ = "shop-prod"
PAT = AccessToken(demo_data.DEMO_ACCESS_TOKEN)
PRJ = ProjectToken(demo_data.DEMO_PROJECT_TOKENS[PROJ])


class FakeTime:
    """Injected clock and sleep: records every wait, never waits."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.wall = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def timing(self) -> Timing:
        return Timing(
            sleep=self.sleep,
            clock=lambda: self.now,
            wall=lambda: self.wall,
            rng=random.Random(1),
        )


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
async def client(sandbox: SandboxServer, fake_time: FakeTime) -> Any:
    async with BotProtectionClient(sandbox.base_url, timing=fake_time.timing()) as c:
        yield c


def _sent(sandbox: SandboxServer) -> int:
    return sandbox.stats.requests


def _last(sandbox: SandboxServer) -> Any:
    # The sandbox logs a request as its answer goes out; give its thread a
    # moment to finish logging after the client has the answer.
    deadline = time.monotonic() + 60  # a hang guard
    while True:
        log = sandbox.state.recorder.log
        if len(log) >= sandbox.stats.requests and log:
            return log[-1]
        if time.monotonic() > deadline:
            return sandbox.state.recorder.last()
        time.sleep(0.005)


async def test_limiter_round_trip(client: BotProtectionClient, sandbox: SandboxServer) -> None:
    change = await client.set_rate_limiter_active(ACC, PROJ, "rl-search", True, PRJ)
    assert change.is_active is True
    assert change.source is LimiterStateSource.RESPONSE
    assert change.project.id == PROJ
    assert change.project.limiter("rl-search").is_active is True  # type: ignore[union-attr]
    record = _last(sandbox)
    assert record.method == "PATCH"
    assert record.json == {"isActive": True}
    assert record.content_type == "application/json"
    assert record.auth is not None and record.auth.kind == "project"
    change = await client.set_rate_limiter_active(ACC, PROJ, "rl-search", False, PRJ)
    assert change.is_active is False


async def test_revocation_outcomes(client: BotProtectionClient, sandbox: SandboxServer) -> None:
    rev = await client.revoke_grant(ACC, PROJ, PAT, visitor_id="vis_7Hq2kP9xLm")
    assert rev.outcome is RevocationOutcome.WITHDRAWN
    assert rev.report_id and rev.grant_expires_at and rev.grant_remaining_attempts == 3
    assert _last(sandbox).json == {"subject": {"visitorId": "vis_7Hq2kP9xLm"}}
    again = await client.revoke_grant(ACC, PROJ, PAT, visitor_id="vis_7Hq2kP9xLm")
    assert again.outcome is RevocationOutcome.NOTHING_STANDING
    by_user = await client.revoke_grant(ACC, PROJ, PAT, user_account_id="user-1042")
    assert by_user.outcome is RevocationOutcome.WITHDRAWN
    both = await client.revoke_grant(
        ACC, PROJ, PAT, visitor_id="vis_Bk41Zr0aQe", user_account_id="user-2077"
    )
    assert both.outcome is RevocationOutcome.WITHDRAWN
    assert _last(sandbox).json == {
        "subject": {"visitorId": "vis_Bk41Zr0aQe", "userAccountId": "user-2077"}
    }
    assert _last(sandbox).auth.kind == "personal"  # type: ignore[union-attr]


async def test_thresholds_sent_exactly(client: BotProtectionClient, sandbox: SandboxServer) -> None:
    th = build_thresholds("Bot score", "0.123456789", "0.05")
    receipt = await client.update_dimension_thresholds(ACC, PROJ, "bot-score", th, PAT)
    assert receipt.status == 200
    record = _last(sandbox)
    assert record.method == "PUT"
    assert b'"blockThreshold":0.123456789' in record.body
    assert b'"challengeThreshold":0.05' in record.body
    assert record.json == {
        "name": "Bot score",
        "blockThreshold": 0.123456789,
        "challengeThreshold": 0.05,
    }


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.revoke_grant(ACC, PROJ, PAT),
        lambda c: c.revoke_grant(ACC, PROJ, PAT, visitor_id=""),
        lambda c: c.revoke_grant(ACC, PROJ, PAT, visitor_id="x" * 257),
        lambda c: c.revoke_grant(ACC, PROJ, PAT, user_account_id="a\x1bb"),
        lambda c: c.set_rate_limiter_active(ACC, "..", "rl", True, PRJ),
        lambda c: c.set_rate_limiter_active(ACC, PROJ, ".", True, PRJ),
        lambda c: c.set_rate_limiter_active("", PROJ, "rl", True, PRJ),
        lambda c: c.update_dimension_thresholds(
            ACC, PROJ, "d", DimensionThresholds(name="n", block="nan", challenge="0.1"), PAT
        ),
        lambda c: c.update_dimension_thresholds(
            ACC, PROJ, "d", DimensionThresholds(name="", block="0.5", challenge="0.1"), PAT
        ),
    ],
)
async def test_invalid_input_sends_nothing(
    client: BotProtectionClient, sandbox: SandboxServer, call: Any
) -> None:
    with pytest.raises(ValidationError) as info:
        await call(client)
    assert info.value.exit_code == 2
    assert _sent(sandbox) == 0


@pytest.mark.parametrize("name, block", [("", "0.5"), ("ok", "inf"), ("ok", "NaN"), ("ok", "x")])
def test_threshold_validation(name: str, block: str) -> None:
    with pytest.raises(ValidationError):
        build_thresholds(name, block, "0.1")


@pytest.mark.parametrize(
    "ident", ["a/b", "?x", "#y", "%2F", "with space", "ünï©ødé", "%2E%2E", "a..b"]
)
async def test_hostile_ids_arrive_exactly(
    client: BotProtectionClient, sandbox: SandboxServer, ident: str
) -> None:
    with pytest.raises(ApiError) as info:
        await client.set_rate_limiter_active(ACC, PROJ, ident, True, PRJ)
    assert info.value.status == 404
    record = _last(sandbox)
    assert record.segments[-2] == ident
    with pytest.raises(ApiError):
        await client.update_dimension_thresholds(
            ACC, ident, "dim", build_thresholds("n", "0.5", "0.2"), PAT
        )
    assert _last(sandbox).segments[4] == ident


async def test_hostile_project_ids_work_end_to_end(hostile_sandbox: SandboxServer) -> None:
    token = ProjectToken(demo_data.HOSTILE_PROJECT_TOKEN)
    async with BotProtectionClient(hostile_sandbox.base_url) as c:
        for limiter in demo_data.HOSTILE_LIMITER_IDS:
            change = await c.set_rate_limiter_active(
                ACC, demo_data.HOSTILE_PROJECT_ID, limiter, True, token
            )
            assert change.limiter_id == limiter


@pytest.mark.parametrize(
    "token, status",
    [
        (AccessToken("pat_unknown"), 401),
        (AccessToken(demo_data.OTHER_ACCESS_TOKEN), 403),
        (AccessToken(demo_data.DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION), 403),
    ],
)
async def test_auth_errors_carry_the_error_object(
    client: BotProtectionClient, token: AccessToken, status: int
) -> None:
    with pytest.raises(ApiError) as info:
        await client.revoke_grant(ACC, PROJ, token, visitor_id="v")
    err = info.value
    assert err.status == status and err.exit_code == 1
    assert err.error is not None and err.error.message and err.error.code and err.error.type
    assert err.to_json()["error"]["status"] == status


async def test_wrong_token_kind_is_refused_locally(client: BotProtectionClient) -> None:
    with pytest.raises(TypeError):
        await client.revoke_grant(ACC, PROJ, PRJ, visitor_id="v")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await client.set_rate_limiter_active(ACC, PROJ, "rl", True, PAT)  # type: ignore[arg-type]


async def test_project_token_value_on_revocation_is_403(client: BotProtectionClient) -> None:
    # The service's own check: a project API token where a personal one belongs.
    with pytest.raises(ApiError) as info:
        await client.revoke_grant(ACC, PROJ, AccessToken(PRJ.reveal()), visitor_id="v")
    assert info.value.status == 403


async def test_unknown_ids_are_404(client: BotProtectionClient) -> None:
    with pytest.raises(ApiError) as info:
        await client.set_rate_limiter_active(ACC, PROJ, "nope", True, PRJ)
    assert info.value.status == 404
    with pytest.raises(ApiError) as info:
        await client.update_dimension_thresholds(
            ACC, PROJ, "nope", build_thresholds("n", "0.5", "0.2"), PAT
        )
    assert info.value.status == 404


# -- retries, backoff, Retry-After, deadline ------------------------------------------


async def test_5xx_retried_with_backoff_then_success(
    client: BotProtectionClient, sandbox: SandboxServer, fake_time: FakeTime
) -> None:
    sandbox.faults.configure(fail_next=2, error_status=503)
    change = await client.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
    assert change.attempts == 3
    assert _sent(sandbox) == 3
    assert len(fake_time.sleeps) == 2
    # equal jitter: [base/2, base] then [base, 2*base]
    assert 0.125 <= fake_time.sleeps[0] <= 0.25
    assert 0.25 <= fake_time.sleeps[1] <= 0.5


async def test_gives_up_after_max_attempts(
    client: BotProtectionClient, sandbox: SandboxServer, fake_time: FakeTime
) -> None:
    sandbox.faults.configure(fail_next=10, error_status=502)
    with pytest.raises(ApiError) as info:
        await client.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
    assert info.value.status == 502
    assert info.value.attempts == 4
    assert "gave up after 4 attempts" in info.value.details
    assert _sent(sandbox) == 4


@pytest.mark.parametrize("status", [400, 401, 404, 500])
async def test_other_statuses_not_retried(
    client: BotProtectionClient, sandbox: SandboxServer, status: int
) -> None:
    if status == 500:
        sandbox.faults.configure(fail_next=1, error_status=500)
        call = client.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
    elif status == 401:
        call = client.set_rate_limiter_active(ACC, PROJ, "rl-api", True, ProjectToken("bad"))
    else:
        call = client.set_rate_limiter_active(ACC, PROJ, "nope", True, PRJ)
    with pytest.raises(ApiError):
        await call
    assert _sent(sandbox) == 1


async def test_retry_after_seconds(
    client: BotProtectionClient, sandbox: SandboxServer, fake_time: FakeTime
) -> None:
    sandbox.faults.configure(rate_limit_next=1, retry_after="3")
    await client.revoke_grant(ACC, PROJ, PAT, visitor_id="v")
    assert fake_time.sleeps == [3.0]


async def test_retry_after_http_date(
    client: BotProtectionClient, sandbox: SandboxServer, fake_time: FakeTime
) -> None:
    when = fake_time.wall + timedelta(seconds=7)
    sandbox.faults.configure(rate_limit_next=1, retry_after=format_datetime(when, usegmt=True))
    await client.revoke_grant(ACC, PROJ, PAT, visitor_id="v")
    assert fake_time.sleeps == [7.0]


async def test_retry_after_is_capped(sandbox: SandboxServer, fake_time: FakeTime) -> None:
    policy = RetryPolicy(retry_after_cap=5, deadline=60)
    async with BotProtectionClient(sandbox.base_url, policy=policy, timing=fake_time.timing()) as c:
        sandbox.faults.configure(rate_limit_next=1, retry_after="3600")
        await c.revoke_grant(ACC, PROJ, PAT, visitor_id="v")
    assert fake_time.sleeps == [5.0]


async def test_deadline_includes_retries(sandbox: SandboxServer, fake_time: FakeTime) -> None:
    policy = RetryPolicy(deadline=10, max_attempts=10, retry_after_cap=30)
    async with BotProtectionClient(sandbox.base_url, policy=policy, timing=fake_time.timing()) as c:
        sandbox.faults.configure(rate_limit_next=10, retry_after="4")
        with pytest.raises(ApiError) as info:
            await c.revoke_grant(ACC, PROJ, PAT, visitor_id="v")
    # 0 s: try, wait 4; 4 s: try, wait 4; 8 s: try; 4 more would pass 10 s.
    assert fake_time.sleeps == [4.0, 4.0]
    assert info.value.status == 429
    assert "deadline" in info.value.details
    assert _sent(sandbox) == 3


async def test_real_deadline_on_a_slow_service(sandbox: SandboxServer) -> None:
    policy = RetryPolicy(deadline=0.3, read_timeout=5)
    sandbox.faults.configure(latency=2.0)
    async with BotProtectionClient(sandbox.base_url, policy=policy) as c:
        with pytest.raises(DeadlineExceeded) as info:
            await c.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
    assert info.value.exit_code == 4


async def test_non_json_body(client: BotProtectionClient, sandbox: SandboxServer) -> None:
    sandbox.faults.configure(non_json_next=1)
    with pytest.raises(UnusableBodyError) as info:
        await client.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
    assert info.value.exit_code == 1
    assert "not JSON" in info.value.details


async def test_body_size_cap(sandbox: SandboxServer) -> None:
    async with BotProtectionClient(sandbox.base_url, max_body_bytes=100) as c:
        with pytest.raises(UnusableBodyError, match="larger"):
            await c.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)


async def test_dropped_connection_retried(
    client: BotProtectionClient, sandbox: SandboxServer
) -> None:
    sandbox.faults.configure(drop_next=1)
    change = await client.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
    assert change.attempts == 2


async def test_revocation_after_ambiguous_failure_is_unknown_retried(
    client: BotProtectionClient, sandbox: SandboxServer
) -> None:
    # The first attempt withdraws the grant, then the connection drops before
    # the answer: the retry finds nothing standing. That is not "nothing was
    # standing": it is "unknown (retried)".
    sandbox.faults.configure(drop_next=1, drop_mode="after")
    rev = await client.revoke_grant(ACC, PROJ, PAT, visitor_id="vis_7Hq2kP9xLm")
    assert rev.attempts == 2
    assert rev.outcome is RevocationOutcome.UNKNOWN_RETRIED
    assert rev.to_json()["revoked"] is None


async def test_connection_refused(fake_time: FakeTime) -> None:
    with SandboxServer() as server:
        url = server.base_url
    async with BotProtectionClient(url, timing=fake_time.timing()) as c:
        with pytest.raises(ConnectionFailed) as info:
            await c.set_rate_limiter_active(ACC, PROJ, "rl-api", True, PRJ)
    assert info.value.exit_code == 4
    assert info.value.attempts == 4
    assert len(fake_time.sleeps) == 3


def test_plain_http_refused_for_remote_hosts() -> None:
    with pytest.raises(RefusedError):
        BotProtectionClient("http://api.example.com")


async def test_empty_and_204_threshold_answers(asgi_sandbox: Any) -> None:
    # The ASGI transport path, with the sandbox's own {} answer.
    import httpx

    from bottui.sandbox.endpoints import create_app

    transport = httpx.ASGITransport(app=create_app(asgi_sandbox.state, asgi_sandbox.faults))
    async with BotProtectionClient("http://127.0.0.1", transport=transport) as c:
        receipt = await c.update_dimension_thresholds(
            ACC, PROJ, "bot-score", build_thresholds("Bot score", "0.9", "0.4"), PAT
        )
    assert receipt.status == 200


@pytest.mark.parametrize("status", [200, 204])
async def test_a_threshold_update_answered_with_an_empty_body_succeeds(
    asgi_sandbox: Any, status: int
) -> None:
    # The sandbox applies the update; its answer reaches the client with no body at all.
    from bottui.sandbox.endpoints import create_app

    app = create_app(asgi_sandbox.state, asgi_sandbox.faults)

    async def emptied(scope: Any, receive: Any, send: Any) -> None:
        async def without_body(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
                message = {**message, "status": status, "headers": headers}
            elif message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await app(scope, receive, without_body)

    transport = httpx.ASGITransport(app=emptied)
    thresholds = build_thresholds("Bot score", "0.9", "0.4")
    async with BotProtectionClient("http://127.0.0.1", transport=transport) as c:
        receipt = await c.update_dimension_thresholds(ACC, PROJ, "bot-score", thresholds, PAT)
    assert receipt.status == status
    assert receipt.thresholds == thresholds


# -- no token anywhere in what a failure prints ------------------------------------------

CANARY = "CANARY_4f7d1e9b0c"


def _everything_printed(exc: BaseException) -> str:
    from rich.console import Console
    from rich.traceback import Traceback

    parts = [str(exc), repr(exc), json.dumps(getattr(exc, "to_json", dict)(), default=str)]
    parts += traceback.format_exception(exc)
    parts += list(traceback.TracebackException.from_exception(exc, capture_locals=True).format())
    console = Console(record=True, width=200, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(Traceback.from_exception(type(exc), exc, exc.__traceback__, show_locals=True))
    parts.append(console.export_text())
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        parts.append(repr(cur.__context__))
        parts.append(repr(getattr(cur, "__dict__", {})))
        cur = cur.__cause__ or cur.__context__
    return "\n".join(parts)


@pytest.mark.parametrize(
    "fault",
    [
        {},  # 401 for an unknown token
        {"fail_next": 9, "error_status": 503},
        {"rate_limit_next": 9, "retry_after": "1"},
        {"non_json_next": 1},
        {"drop_next": 9},
        {"latency": 2.0},
    ],
)
async def test_canary_token_never_printed(
    sandbox: SandboxServer, fake_time: FakeTime, fault: dict[str, Any]
) -> None:
    sandbox.faults.configure(**fault)
    policy = RetryPolicy(deadline=0.5 if "latency" in fault else 30)
    timing = Timing() if "latency" in fault else fake_time.timing()
    for token_cls, call in (
        (ProjectToken, lambda c, t: c.set_rate_limiter_active(ACC, PROJ, "rl-api", True, t)),
        (AccessToken, lambda c, t: c.revoke_grant(ACC, PROJ, t, visitor_id="v")),
    ):
        async with BotProtectionClient(sandbox.base_url, policy=policy, timing=timing) as c:
            with pytest.raises(BottuiError) as info:
                await call(c, token_cls(CANARY))
        assert CANARY not in _everything_printed(info.value)


async def test_canary_absent_after_connection_failure(fake_time: FakeTime) -> None:
    with SandboxServer() as server:
        url = server.base_url
    async with BotProtectionClient(url, timing=fake_time.timing()) as c:
        with pytest.raises(ConnectionFailed) as info:
            await c.revoke_grant(ACC, PROJ, AccessToken(CANARY), visitor_id="v")
    assert info.value.__context__ is None and info.value.__cause__ is None
    assert CANARY not in _everything_printed(info.value)


class _BuggyTransport(httpx.AsyncBaseTransport):
    """A transport with a bug: it raises something no transport should."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        headers = dict(request.headers)  # a local holding the token, as a library might
        raise RuntimeError(f"bug with {len(headers)} headers")


async def test_transport_bug_becomes_our_error_without_frames() -> None:
    async with BotProtectionClient("http://127.0.0.1:1", transport=_BuggyTransport()) as c:
        with pytest.raises(ConnectionFailed) as info:
            await c.revoke_grant(ACC, PROJ, AccessToken(CANARY), visitor_id="v")
    assert "RuntimeError" in info.value.details
    assert info.value.__context__ is None
    assert CANARY not in _everything_printed(info.value)

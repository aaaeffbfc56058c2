"""#12, #29: the hostile matrix through the single path and the bulk path alike.

Each case runs against a fresh loopback sandbox with the same fault, three
ways: a single change (:meth:`BotProtectionClient.revoke_grant`), one id as a
bulk run's worker sends it (a pool of the run's own,
:meth:`BotProtectionClient.with_pool`, and a shared pause), and a whole
:class:`~bottui.ops.bulk.engine.BulkRevocation` of that one id. What comes
back (the revocation, or the error with its title, details, "may have
arrived" and attempts; for the engine, the id's status and words) and what
the sandbox received (method, path, body, headers) must be the same: a
timeout or a drop after sending is *unknown* on every path, an echoed token
masked on every path.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from bottui.api.client import BotProtectionClient
from bottui.api.errors import BottuiError
from bottui.api.models import Revocation
from bottui.api.sending import RetryPolicy, SharedPause, Timing
from bottui.api.tokens import AccessToken
from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.input import BulkSource
from bottui.ops.bulk.report import ItemResult, ItemStatus
from bottui.ops.session import Session, Settings
from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import ManualClock, demo_state
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from tests.api.resolvers import MapResolver
from tests.fixtures.hostile import ECHO_ACCESS_TOKEN, add_echo_tokens, every_form

PROJ = "shop-prod"
STANDING = "vis_7Hq2kP9xLm"  # a demo grant on shop-prod
QUICK = RetryPolicy(max_attempts=2, base_delay=0.01, read_timeout=0.3, deadline=5)
ONE = RetryPolicy(max_attempts=1, read_timeout=5, deadline=10)
TWO = RetryPolicy(max_attempts=2, base_delay=0.01, read_timeout=5, deadline=10)


async def no_sleep(seconds: float) -> None:
    """Retries without waiting (the pause and backoff still count)."""


@dataclass
class Case:
    """One fault, the policy to meet it with, and the client's other options."""

    faults: dict[str, Any] = field(default_factory=dict)
    policy: RetryPolicy = ONE
    token: str = DEMO_ACCESS_TOKEN
    client: dict[str, Any] = field(default_factory=dict)
    visitor: str = STANDING


CASES: dict[str, Case] = {
    "withdrawn": Case(),
    "nothing standing": Case(visitor="vis_none"),
    "user account": Case(visitor="user-1042"),
    "timeout": Case({"latency": 1.0}, QUICK),
    "drop after": Case({"drop_next": 1, "drop_mode": "after"}),
    "drop before": Case({"drop_next": 1, "drop_mode": "before"}),
    "drop then retried": Case({"drop_next": 1}, TWO),
    "503 then ok": Case({"fail_next": 1, "error_status": 503}, TWO),
    "502 then ok": Case({"fail_next": 1, "error_status": 502}, TWO),
    "500": Case({"fail_next": 1, "error_status": 500}, TWO),
    "429 then ok": Case({"rate_limit_next": 1, "retry_after": "0"}, TWO),
    "429 to the end": Case({"rate_limit_next": 5, "retry_after": "0"}, TWO),
    "not json": Case({"non_json_next": 1}),
    "hostile 403": Case({"hostile_status": 403}),
    "token echoed": Case({"hostile": "token_echo"}, token=ECHO_ACCESS_TOKEN),
    "token echoed in an error": Case(
        {"hostile": "token_echo", "hostile_status": 400}, token=ECHO_ACCESS_TOKEN
    ),
    "surrogates": Case({"hostile": "surrogates"}),
    "body over the cap": Case(client={"max_body_bytes": 20}),
    "bad token": Case(token="pat_not_a_token_0000000000"),
}


def shape(outcome: object) -> tuple[Any, ...]:
    """What a caller sees of a revocation or an error (report ids are random)."""
    if isinstance(outcome, BottuiError):
        return (
            type(outcome).__name__,
            outcome.title,
            outcome.details,
            getattr(outcome, "ambiguous", None),
            getattr(outcome, "attempts", None),
            getattr(outcome, "status", None),
            outcome.exit_code,
        )
    data = outcome.to_json()  # type: ignore[attr-defined]
    data["reportId"] = bool(data["reportId"])
    return (type(outcome).__name__, tuple(sorted(data.items())), outcome.attempts)  # type: ignore[attr-defined]


def received(sandbox: SandboxServer) -> list[tuple[Any, ...]]:
    """What the sandbox received, headers that vary with the library left out."""
    keep = {"user-agent", "accept", "content-type", "x-api-key", "content-length"}
    return [
        (
            r.method,
            r.raw_path,
            r.body,
            tuple(sorted((k.lower(), v) for k, v in r.headers if k.lower() in keep)),
        )
        for r in sandbox.state.recorder.log
    ]


#: One way to send a case's revocation: the revocation, or the error raised.
Path = Callable[[BotProtectionClient, "Case", AccessToken], Awaitable[Revocation]]


def ids(case: Case) -> tuple[str | None, str | None]:
    """The case's (visitor id, user account id)."""
    return (None, case.visitor) if case.visitor.startswith("user") else (case.visitor, None)


async def single(client: BotProtectionClient, case: Case, token: AccessToken) -> Revocation:
    """A single change, as the CLI's ``revoke`` and the TUI send it."""
    visitor, user = ids(case)
    return await client.revoke_grant(
        DEMO_ACCOUNT, PROJ, token, visitor_id=visitor, user_account_id=user
    )


async def bulk(client: BotProtectionClient, case: Case, token: AccessToken) -> Revocation:
    """One id as a bulk run's worker sends it: a pool of the run's size, a shared pause."""
    visitor, user = ids(case)
    pooled = client.with_pool(8)
    try:
        return await pooled.revoke_grant(
            DEMO_ACCOUNT, PROJ, token, visitor_id=visitor, user_account_id=user, pause=SharedPause()
        )
    finally:
        await pooled.aclose()


async def outcome_of(
    path: Path, base_url: str, case: Case, resolver: MapResolver | None = None
) -> object:
    """What ``path`` came back with: the revocation, or the error raised."""
    timing = Timing(sleep=no_sleep)
    client = BotProtectionClient(
        base_url, policy=case.policy, timing=timing, resolver=resolver, **case.client
    )
    async with client:
        try:
            return await path(client, case, AccessToken(case.token))
        except BottuiError as exc:
            return exc


async def attempt(
    path: Path, base_url: str, case: Case, resolver: MapResolver | None = None
) -> tuple[Any, ...]:
    return shape(await outcome_of(path, base_url, case, resolver))


async def engine(base_url: str, case: Case, monkeypatch: pytest.MonkeyPatch) -> ItemResult:
    """The case's id as a whole bulk run of one id: what it says of the id."""
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", case.token)
    timing = Timing(sleep=no_sleep)
    session = Session(
        Locations.default(),
        Settings(profile_name=None, base_url=base_url),
        TokenStore(),
        client_factory=lambda url: BotProtectionClient(
            url, policy=case.policy, timing=timing, **case.client
        ),
    )
    visitor, user = ids(case)
    text = f"{visitor}\n" if user is None else f"userAccountId\n{user}\n"
    results: list[ItemResult] = []
    try:
        run = BulkRevocation(
            session,
            DEMO_ACCOUNT,
            PROJ,
            BulkSource.from_text(text),
            on_result=results.append,
        )
        await run.run()
    finally:
        await session.aclose()
    (result,) = results
    return result


def as_item(outcome: tuple[Any, ...], error: str | None) -> tuple[Any, ...]:
    """What the engine should say of an id whose single change came out as ``outcome``."""
    if outcome[0] == "Revocation":
        data = dict(outcome[1])
        return (data["outcome"], data["reportId"], None)
    status = ItemStatus.UNKNOWN if outcome[3] else ItemStatus.FAILED
    return (status.value, False, error)


@pytest.mark.parametrize("name", list(CASES))
async def test_same_outcome_and_same_bytes_on_the_wire(name: str) -> None:
    case = CASES[name]
    seen = []
    for path in (single, bulk):
        with SandboxServer(demo_state(ManualClock())) as sandbox:  # same times on both
            add_echo_tokens(sandbox)
            sandbox.faults.configure(**case.faults)
            outcome = await attempt(path, sandbox.base_url, case)
            seen.append((outcome, received(sandbox)))
    (single_outcome, single_wire), (bulk_outcome, bulk_wire) = seen
    assert bulk_outcome == single_outcome
    assert bulk_wire == single_wire
    if "echo" in name:
        text = repr(bulk_outcome)
        assert not any(form in text for form in every_form(ECHO_ACCESS_TOKEN, "x" * 16))


@pytest.mark.parametrize("name", list(CASES))
async def test_a_bulk_run_says_of_the_id_what_the_single_path_met(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES[name]
    with SandboxServer(demo_state(ManualClock())) as sandbox:
        add_echo_tokens(sandbox)
        sandbox.faults.configure(**case.faults)
        expected = await outcome_of(single, sandbox.base_url, case)
        single_wire = received(sandbox)
    with SandboxServer(demo_state(ManualClock())) as sandbox:
        add_echo_tokens(sandbox)
        sandbox.faults.configure(**case.faults)
        result = await engine(sandbox.base_url, case, monkeypatch)
        assert received(sandbox) == single_wire
    error = str(expected) if isinstance(expected, BottuiError) else None
    said = (result.status.value, bool(result.report_id), result.error)
    assert said == as_item(shape(expected), error)
    if "echo" in name:
        text = repr(result)
        assert not any(form in text for form in every_form(ECHO_ACCESS_TOKEN, "x" * 16))


def test_unknown_cases_are_unknown() -> None:
    # The point of parity: these may have arrived, on both paths.
    assert CASES["timeout"].faults and CASES["drop after"].faults


async def test_nothing_listening_could_not_connect_on_both() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed: nothing listens
    base = f"http://127.0.0.1:{port}"
    shapes = [await attempt(path, base, Case(policy=TWO)) for path in (single, bulk)]
    assert shapes[0] == shapes[1]
    assert shapes[0][:2] == ("ConnectionFailed", "Could not connect")
    assert shapes[0][3] is False  # nothing was sent: not unknown


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ({"evil.localhost": ["192.0.2.2"]}, "PlainHttpRefused"),
        ({}, "ConnectionFailed"),  # the name does not resolve: final, in plain words
    ],
)
async def test_plain_http_pinning_and_names_as_the_client(
    names: dict[str, list[str]], expected: str
) -> None:
    shapes = []
    resolvers = []
    for path in (single, bulk):
        resolver = MapResolver(names)
        resolvers.append(resolver)
        shapes.append(await attempt(path, "http://evil.localhost:18700", Case(), resolver))
    assert shapes[0] == shapes[1]
    assert shapes[0][0] == expected
    assert resolvers[0].calls == resolvers[1].calls == ["evil.localhost"]


async def test_a_pinned_name_goes_to_its_pinned_address() -> None:
    # The sandbox listens on 127.0.0.3 only: a bulk run's pool connects where the pin says.
    resolver = MapResolver({"pinned.localhost": ["127.0.0.3"]})
    with SandboxServer(demo_state(), host="127.0.0.3") as sandbox:
        base = f"http://pinned.localhost:{sandbox.port}"
        outcome = await attempt(bulk, base, Case(), resolver)
        assert outcome[0] == "Revocation" and sandbox.stats.requests == 1

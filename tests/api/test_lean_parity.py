"""#12: the lean bulk path (``api/lean.py``) behaves as the client, fault by fault.

Each case runs twice against a fresh loopback sandbox with the same fault:
once through :class:`ClientRevocations` (the client over its transport), once
through :class:`LeanRevocations` (straight on aiohttp). What comes back (the
revocation, or the error with its title, details, "may have arrived" and
attempts) and what the sandbox received (method, path, body, headers) must be
the same: a timeout or a drop after sending is *unknown* on both.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from bottui.api.lean import ClientRevocations, LeanRevocations, RevocationSender

from bottui.api.client import BotProtectionClient
from bottui.api.errors import BottuiError
from bottui.api.retry import RetryPolicy, SharedPause, Timing
from bottui.api.tokens import AccessToken
from bottui.sandbox.clock import ManualClock
from bottui.sandbox.demo import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT, demo_state
from bottui.sandbox.server import SandboxServer
from tests.api.resolvers import MapResolver, use_transport
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


async def attempt(
    make: Callable[[BotProtectionClient], RevocationSender],
    base_url: str,
    case: Case,
    resolver: MapResolver | None = None,
) -> tuple[Any, ...]:
    timing = Timing(sleep=no_sleep)
    client = BotProtectionClient(
        base_url, policy=case.policy, timing=timing, resolver=resolver, **case.client
    )
    async with client:
        sender = make(client)
        try:
            try:
                kind = "user" if case.visitor.startswith("user") else "visitor"
                ids = (None, case.visitor) if kind == "user" else (case.visitor, None)
                outcome: object = await sender.revoke(*ids, AccessToken(case.token), SharedPause())
            except BottuiError as exc:
                outcome = exc
        finally:
            await sender.aclose()
    return shape(outcome)


def lean(client: BotProtectionClient) -> RevocationSender:
    sender = client.revocations(DEMO_ACCOUNT, PROJ, max_connections=8)
    assert isinstance(sender, LeanRevocations)
    return sender


def normal(client: BotProtectionClient) -> RevocationSender:
    return ClientRevocations(client, DEMO_ACCOUNT, PROJ)


@pytest.fixture(autouse=True)
def aiohttp_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    use_transport(monkeypatch, "aiohttp")


@pytest.mark.parametrize("name", list(CASES))
async def test_same_outcome_and_same_bytes_on_the_wire(name: str) -> None:
    case = CASES[name]
    seen = []
    for make in (normal, lean):
        with SandboxServer(demo_state(ManualClock())) as sandbox:  # same times on both
            add_echo_tokens(sandbox)
            sandbox.faults.configure(**case.faults)
            outcome = await attempt(make, sandbox.base_url, case)
            seen.append((outcome, received(sandbox)))
    (client_outcome, client_wire), (lean_outcome, lean_wire) = seen
    assert lean_outcome == client_outcome
    assert lean_wire == client_wire
    if "echo" in name:
        text = repr(lean_outcome)
        assert not any(form in text for form in every_form(ECHO_ACCESS_TOKEN, "x" * 16))


def test_unknown_cases_are_unknown() -> None:
    # The point of parity: these may have arrived, on both paths.
    assert CASES["timeout"].faults and CASES["drop after"].faults


async def test_nothing_listening_could_not_connect_on_both() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed: nothing listens
    base = f"http://127.0.0.1:{port}"
    shapes = [await attempt(make, base, Case(policy=TWO)) for make in (normal, lean)]
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
    for make in (normal, lean):
        resolver = MapResolver(names)
        resolvers.append(resolver)
        shapes.append(await attempt(make, "http://evil.localhost:18700", Case(), resolver))
    assert shapes[0] == shapes[1]
    assert shapes[0][0] == expected
    assert resolvers[0].calls == resolvers[1].calls == ["evil.localhost"]


async def test_a_pinned_name_goes_to_its_pinned_address() -> None:
    # The sandbox listens on 127.0.0.3 only: the lean pool connects where the pin says.
    resolver = MapResolver({"pinned.localhost": ["127.0.0.3"]})
    with SandboxServer(demo_state(), host="127.0.0.3") as sandbox:
        base = f"http://pinned.localhost:{sandbox.port}"
        outcome = await attempt(lean, base, Case(), resolver)
        assert outcome[0] == "Revocation" and sandbox.stats.requests == 1

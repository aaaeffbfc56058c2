"""Parsing is tolerant of missing and extra fields and raises only our own error."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bottui.api.errors import UnusableBodyError
from bottui.api.models import Project, RateLimiter, Revocation, RevocationOutcome

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)

opt_text = st.none() | st.text(max_size=20)

limiter_elements = st.fixed_dictionaries(
    {"id": st.text(min_size=1, max_size=12), "isActive": st.booleans()},
    optional={"name": st.text(max_size=12), "extra": json_values},
)

projects = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=12),
        "customerId": st.text(max_size=12),
        "name": st.text(max_size=20),
        "url": st.text(max_size=20),
        "siteKey": st.text(max_size=12),
        "serverKey": st.text(max_size=12),
        "isProtected": st.booleans(),
        "rules": st.fixed_dictionaries(
            {"order": st.lists(json_values, max_size=3), "rules": st.lists(json_values, max_size=3)}
        ),
        "rateLimits": st.fixed_dictionaries(
            {
                "order": st.lists(st.text(min_size=1, max_size=12), max_size=3),
                "rateLimits": st.lists(limiter_elements, max_size=4),
            }
        ),
        "phishingInfo": st.fixed_dictionaries(
            {
                "originalUrl": st.text(max_size=12),
                "action": st.text(max_size=12),
                "allowedUrls": st.lists(json_values, max_size=3),
            }
        ),
        "responseExtraFields": st.lists(json_values, max_size=3),
        "updatedAt": st.text(max_size=24),
        "createdAt": st.text(max_size=24),
        "somethingNew": json_values,
    },
)


@given(projects)
def test_project_round_trip(data: dict[str, Any]) -> None:
    wire = json.loads(json.dumps(data))
    project = Project.from_json(wire)
    assert project.to_json(show_secrets=True) == wire
    assert Project.from_json(project.to_json(show_secrets=True)) == project
    assert project.name == wire.get("name")
    assert project.server_key == wire.get("serverKey")
    if "serverKey" in wire:
        assert project.to_json()["serverKey"] == "***"
    if "rateLimits" in wire:
        for element in wire["rateLimits"]["rateLimits"]:
            found = project.limiter(element["id"])
            assert found is not None


@given(json_values)
def test_any_json_parses_or_raises_our_error(data: object) -> None:
    for parse in (Project.from_json, Revocation.from_json):
        try:
            parse(data)
        except UnusableBodyError:
            # ==, not is: each access to a classmethod makes a new bound method.
            assert not isinstance(data, dict) or parse == Revocation.from_json


def test_empty_project_is_a_project() -> None:
    project = Project.from_json({})
    assert project.id is None and project.rate_limiters == ()


def test_server_key_never_in_repr() -> None:
    project = Project.from_json({"id": "p", "serverKey": "CANARY-SERVER-KEY"})
    assert "CANARY" not in repr(project)


@pytest.mark.parametrize(
    "limits, expected",
    [
        ({"rateLimits": [{"id": "a", "isActive": True}]}, {"a": True}),
        ({"rateLimits": [{"rateLimiterId": "a", "active": False}]}, {"a": False}),
        ({"rateLimits": ["a", "b"]}, {"a": None, "b": None}),
        ({"rateLimits": [{"id": 7, "enabled": True}]}, {"7": True}),
        ({"rateLimits": [None, 3, [], {"noid": 1}], "order": ["x"]}, {"x": None}),
        ({"rateLimits": "not a list"}, {}),
        ({"order": [{"id": "z"}]}, {"z": None}),
    ],
)
def test_odd_rate_limit_shapes(limits: dict[str, Any], expected: dict[str, Any]) -> None:
    project = Project.from_json({"rateLimits": limits})
    assert {r.id: r.is_active for r in project.rate_limiters} == expected


def test_rate_limiter_from_bool_id_is_ignored() -> None:
    assert RateLimiter.from_element({"id": True}) is None


revocations = st.fixed_dictionaries(
    {"reportId": st.text(max_size=16)},
    optional={
        "revoked": st.booleans(),
        "grantExpiresAt": st.text(max_size=24),
        "grantRemainingAttempts": st.integers(min_value=0, max_value=10**6),
    },
)


@given(revocations)
def test_revocation_round_trip(data: dict[str, Any]) -> None:
    rev = Revocation.from_json(data)
    doc = rev.to_json()
    assert doc["revoked"] == data.get("revoked")
    assert doc["reportId"] == data["reportId"]
    assert doc["grantExpiresAt"] == data.get("grantExpiresAt")
    assert doc["grantRemainingAttempts"] == data.get("grantRemainingAttempts")


@pytest.mark.parametrize(
    "revoked, retried, outcome",
    [
        (True, False, RevocationOutcome.WITHDRAWN),
        (True, True, RevocationOutcome.WITHDRAWN),
        (False, False, RevocationOutcome.NOTHING_STANDING),
        (False, True, RevocationOutcome.UNKNOWN_RETRIED),
        (None, False, RevocationOutcome.UNKNOWN),
    ],
)
def test_revocation_outcomes(revoked: bool | None, retried: bool, outcome: Any) -> None:
    rev = Revocation(revoked=revoked, retried_ambiguous=retried)
    assert rev.outcome is outcome
    if outcome is RevocationOutcome.UNKNOWN_RETRIED:
        assert rev.to_json()["revoked"] is None


@pytest.mark.parametrize(
    "body",
    [
        {"revoked": "yes"},
        {"reportId": 5},
        {"grantRemainingAttempts": True},
        {"grantRemainingAttempts": 1.5},
        {"grantExpiresAt": 3},
    ],
)
def test_revocation_impossible_types(body: dict[str, Any]) -> None:
    with pytest.raises(UnusableBodyError):
        Revocation.from_json(body)

"""Two rules of ``bottui/ops/mutations.py`` that a mutation run found unguarded (#28):
a failure that may have reached the service is journaled ``unknown`` whatever its kind,
and a plan is sent only under the base URL it was made for - not under one that is a
mere prefix of it."""

from __future__ import annotations

import pytest

from bottui.api.errors import (
    ApiError,
    BottuiError,
    NetworkError,
    RefusedError,
    UnusableBodyError,
)
from bottui.api.requests import PreparedRequest
from bottui.ops.mutations import _check_base_url, error_outcome
from bottui.store.journal.journal_records import Outcome


def kinds() -> list[tuple[BottuiError, Outcome]]:
    return [
        (NetworkError("The request timed out"), Outcome.NETWORK_ERROR),
        (ApiError(503, None), Outcome.API_ERROR),
        (UnusableBodyError("not JSON"), Outcome.UNUSABLE_BODY),
    ]


@pytest.mark.parametrize("index", range(3))
def test_a_failure_that_may_have_arrived_is_unknown_whatever_its_kind(index: int) -> None:
    error, plain = kinds()[index]
    assert error_outcome(error) is plain  # it surely did not arrive: its own kind
    error.ambiguous = True
    assert error_outcome(error) is Outcome.UNKNOWN  # it may have: nobody knows


def request(url: str) -> PreparedRequest:
    return PreparedRequest(
        operation="limiter.set-active",
        method="PATCH",
        url=url,
        body=b'{"isActive": true}',
        token_kind="project",
    )


@pytest.mark.parametrize(
    "base_url, url",
    [
        ("https://api.example.com", "https://api.example.com/projects/p/rate-limiters/r"),
        ("https://api.example.com/v1", "https://api.example.com/v1/projects/p"),
    ],
)
def test_a_plan_is_sent_under_its_own_base_url(base_url: str, url: str) -> None:
    _check_base_url(base_url, request(url))


@pytest.mark.parametrize(
    "base_url, url",
    [
        # The session's base URL is a prefix of the planned one, but another host...
        ("https://api.example.com", "https://api.example.com.evil.test/projects/p"),
        # ... another port, another path.
        ("https://api.example.com", "https://api.example.com:8443/projects/p"),
        ("https://api.example.com/v1", "https://api.example.com/v10/projects/p"),
        ("https://api.example.com", "https://api.example.org/projects/p"),
    ],
)
def test_a_plan_made_for_another_base_url_is_refused(base_url: str, url: str) -> None:
    with pytest.raises(RefusedError) as caught:
        _check_base_url(base_url, request(url))
    assert caught.value.title == "Out-of-date plan"
    assert "nothing was sent" in caught.value.details

"""Ids become exactly one segment; plain http only on loopback."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bottui.api import transport
from bottui.api.errors import RefusedError, ValidationError


@pytest.mark.parametrize(
    "raw, encoded",
    [
        ("a/b", "a%2Fb"),
        ("?x", "%3Fx"),
        ("#y", "%23y"),
        ("%2F", "%252F"),
        ("a b", "a%20b"),
        ("ü", "%C3%BC"),
        ("..x", "..x"),
    ],
)
def test_segment_encoding(raw: str, encoded: str) -> None:
    assert transport.segment("id", raw) == encoded


@given(st.text(min_size=1).filter(lambda s: s not in (".", "..")))
def test_segment_is_one_segment_that_decodes_back(value: str) -> None:
    try:
        encoded = transport.segment("id", value)
    except ValidationError:
        return
    assert "/" not in encoded and "?" not in encoded and "#" not in encoded
    assert unquote(encoded) == value


def test_paths() -> None:
    assert transport.rate_limiter_active_path("a", "p/1", "r l") == (
        "/api/v1/a/projects/p%2F1/rate_limiters/r%20l/active"
    )
    assert transport.grant_revocations_path("a", "p") == (
        "/api/v1/a/projects/p/challenges/grant-revocations"
    )
    assert transport.dimension_thresholds_path("a", "p", "d") == (
        "/api/v1/a/projects/p/dimension-thresholds/d"
    )


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://api.example.com/", "https://api.example.com"),
        ("HTTPS://API.example.com/base/", "https://api.example.com/base"),
        ("http://127.0.0.1:8765", "http://127.0.0.1:8765"),
        ("http://localhost:1", "http://localhost:1"),
        ("http://[::1]:80", "http://[::1]:80"),
        ("http://127.9.9.9", "http://127.9.9.9"),
    ],
)
def test_base_url_accepted(url: str, expected: str) -> None:
    assert transport.check_base_url(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "http://api.example.com",
        "http://10.0.0.1",
        "http://192.168.1.1:8765",
        "ftp://x",
        "api.example.com",
        "https://u:p@host",
        "https://host/?q=1",
        "",
    ],
)
def test_base_url_refused(url: str) -> None:
    with pytest.raises(RefusedError) as info:
        transport.check_base_url(url)
    assert info.value.exit_code == 2

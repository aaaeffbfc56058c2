"""Durations: what ``--for`` and ``timed extend`` accept, and their text."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bottui.ops.durations import MAX_DURATION, duration_text, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("30m", 1800),
        ("2h", 7200),
        ("1d", 86400),
        ("1h30m", 5400),
        ("7d", 7 * 86400),
        (" 2H ", 7200),
        ("1d2h3m4s", 93784),
    ],
)
def test_accepted(text: str, seconds: int) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "2",
        "h",
        "2x",
        "1.5h",
        "-1h",
        "30m1h",
        "1h1h",
        "1h 30m",
        "0s",
        "0h0m",
        "7d1s",
        "8d",
        "99999999s",
    ],
)
def test_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"duration|no time|longer than"):
        parse_duration(text)


def test_longer_than_the_maximum_says_the_maximum() -> None:
    with pytest.raises(ValueError, match="longer than 7d"):
        parse_duration("169h")


@given(st.integers(min_value=1, max_value=int(MAX_DURATION.total_seconds())))
def test_text_reads_back(seconds: int) -> None:
    duration = timedelta(seconds=seconds)
    assert parse_duration(duration_text(duration)) == duration


def test_text_of_nothing_and_negative() -> None:
    assert duration_text(timedelta(0)) == "0s"
    assert duration_text(timedelta(minutes=-14)) == "-14m"

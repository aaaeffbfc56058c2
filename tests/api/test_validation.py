"""The validators accept exactly what the spec allows, and say why otherwise."""

from __future__ import annotations

import json
import math
import unicodedata
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bottui.api import requests
from bottui.api.errors import ValidationError


def _allowed(s: str) -> bool:
    return 1 <= len(s) <= 256 and all(unicodedata.category(c) not in ("Cc", "Cs") for c in s)


@given(st.text(alphabet=st.characters(), min_size=0, max_size=300))
def test_subject_id_accepts_exactly_1_to_256_chars_without_controls(value: str) -> None:
    if _allowed(value):
        assert requests.subject_id("visitor id", value) == value
    else:
        with pytest.raises(ValidationError):
            requests.subject_id("visitor id", value)


@given(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=256))
def test_subject_id_counts_code_points(value: str) -> None:
    if all(unicodedata.category(c) != "Cc" for c in value):
        assert requests.subject_id("id", value) == value


@pytest.mark.parametrize("length, ok", [(1, True), (255, True), (256, True), (257, False)])
def test_subject_id_length_limits(length: int, ok: bool) -> None:
    value = "é" * length  # 2 bytes each: the limit is in characters
    if ok:
        requests.subject_id("id", value)
    else:
        with pytest.raises(ValidationError, match="at most 256"):
            requests.subject_id("id", value)


@pytest.mark.parametrize("bad", ["a\x1bb", "\x00", "tab\there", "nl\n", "c1\x9b", "del\x7f"])
def test_subject_id_refuses_control_characters(bad: str) -> None:
    with pytest.raises(ValidationError, match="control character"):
        requests.subject_id("visitor id", bad)


def test_subject_needs_one_id_and_holds_only_given_ones() -> None:
    with pytest.raises(ValidationError, match="visitor id, a user account id"):
        requests.subject(None, None)
    with pytest.raises(ValidationError):
        requests.subject("", None)
    assert requests.subject("v", None) == {"visitorId": "v"}
    assert requests.subject(None, "u") == {"userAccountId": "u"}
    assert requests.subject("v", "u") == {"visitorId": "v", "userAccountId": "u"}


@pytest.mark.parametrize("bad", ["", ".", ".."])
def test_path_id_refuses_what_cannot_be_a_segment(bad: str) -> None:
    with pytest.raises(ValidationError):
        requests.path_id("project id", bad)


@pytest.mark.parametrize("good", ["a/b", "?x", "#y", "%2F", "with space", "ünï©ødé", "...", "a..b"])
def test_path_id_accepts_hostile_but_valid_ids(good: str) -> None:
    assert requests.path_id("project id", good) == good


@pytest.mark.parametrize(
    "typed, sent",
    [
        ("0.123456789", "0.123456789"),
        ("0.50", "0.50"),
        ("1", "1"),
        ("-0.25", "-0.25"),
        ("1e-3", "1e-3"),
        (" 0.7 ", "0.7"),
        (".5", "0.5"),
        ("+1", "1"),
        ("0.1234567890123456789", "0.1234567890123456789"),
        (0.123456789, "0.123456789"),
        (1, "1"),
        (Decimal("0.3"), "0.3"),
    ],
)
def test_threshold_literal_is_sent_as_typed(typed: object, sent: str) -> None:
    assert requests.threshold_literal("block", typed) == sent  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad", ["nan", "NaN", "inf", "-Infinity", "1e999", "abc", "", "0x10", float("nan"), True]
)
def test_threshold_literal_refuses_non_finite_and_non_numbers(bad: object) -> None:
    with pytest.raises(ValidationError):
        requests.threshold_literal("block", bad)  # type: ignore[arg-type]


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_finite_floats_round_trip_exactly(value: float) -> None:
    literal = requests.threshold_literal("block", value)
    assert float(literal) == value


@given(st.one_of(st.floats(), st.text(max_size=20)))
def test_threshold_literal_raises_only_validation_error(value: object) -> None:
    try:
        literal = requests.threshold_literal("block", value)  # type: ignore[arg-type]
    except ValidationError:
        return
    assert math.isfinite(float(literal))


def test_dimension_name_not_empty() -> None:
    for bad in ("", "   ", "a\x1b"):
        with pytest.raises(ValidationError):
            requests.dimension_name(bad)
    assert requests.dimension_name("Bot score") == "Bot score"


# -- #28: what a mutation run found unguarded -------------------------------------------


@pytest.mark.parametrize(
    "typed, sent",
    [("1.", "1"), ("-1.", "-1"), ("0.", "0"), ("1.e2", "100"), ("+.5", "0.5"), ("01", "1")],
)
def test_threshold_literal_never_sends_what_json_refuses(typed: str, sent: str) -> None:
    """``1.`` is a number to Decimal, not to JSON: sent as typed it is an invalid body."""
    literal = requests.threshold_literal("block", typed)
    assert literal == sent
    assert requests.JSON_NUMBER.fullmatch(literal)
    assert json.loads(f'{{"block": {literal}}}')["block"] == float(typed)


@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff", "\udc80"])
def test_a_lone_surrogate_in_an_id_is_refused(surrogate: str) -> None:
    value = f"vis{surrogate}x"
    with pytest.raises(ValidationError, match=f"U\\+{ord(surrogate):04X}"):
        requests.path_id("rate limiter id", value)
    with pytest.raises(ValidationError, match=f"U\\+{ord(surrogate):04X}"):
        requests.subject_id("visitor id", value)
    with pytest.raises(ValidationError, match=f"U\\+{ord(surrogate):04X}"):
        requests.dimension_name(value)


@pytest.mark.parametrize(
    "length, ok",
    [(1, True), (requests.PATH_ID_MAX, True), (requests.PATH_ID_MAX + 1, False)],
)
def test_path_id_length_limit(length: int, ok: bool) -> None:
    value = "é" * length  # the limit is in characters
    if ok:
        assert requests.path_id("project id", value) == value
    else:
        with pytest.raises(ValidationError, match=f"longer than {requests.PATH_ID_MAX}"):
            requests.path_id("project id", value)


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        ("+1e-19", "0.0000000000000000001"),
        ("+1e-20", "1e-20"),
        ("+1e19", "10000000000000000000"),
        ("+1e20", "1e+20"),
    ],
)
def test_threshold_literal_rewritten_in_exponent_form_from_twenty_digits(
    typed: str, sent: str
) -> None:
    # A literal JSON refuses ("+...") is rewritten: in plain digits below 20 of them,
    # in exponent form from 20 on (no run of twenty zeros sent for a tiny or huge value).
    literal = requests.threshold_literal("block", typed)
    assert literal == sent
    assert Decimal(literal) == Decimal(typed)

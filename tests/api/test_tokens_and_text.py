"""Tokens never print; untrusted text loses every control character."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bottui.api.tokens import AccessToken, ProjectToken, UnusableToken, check_token
from bottui.plaintext import clean

CANARY = "CANARY-tok-5f1e2d"


@pytest.mark.parametrize("kind", [AccessToken, ProjectToken])
def test_token_never_shows_itself(kind: type[AccessToken]) -> None:
    token = kind(CANARY)
    for text in (repr(token), str(token), f"{token}", f"{token!r}", repr([token]), repr(vars)):
        assert CANARY not in text
    assert token.reveal() == CANARY
    assert not hasattr(token, "__dict__")
    with pytest.raises(AttributeError):
        token.other = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        pickle.dumps(token)


def test_token_kinds_differ() -> None:
    assert AccessToken("x") != ProjectToken("x")
    assert AccessToken("x") == AccessToken("x")
    with pytest.raises(ValueError):
        AccessToken("  ")


@given(st.text())
def test_clean_leaves_no_control_character(value: str) -> None:
    out = clean(value)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)
    assert len(out) == len(value)


def test_clean_keeps_markup_as_text() -> None:
    assert clean("[@click=app.quit]x[/]\x1b[2J") == "[@click=app.quit]x[/]\ufffd[2J"
    assert clean(None) == ""
    assert clean("a\nb", keep_newlines=True) == "a\nb"


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("pat_a\rb", "line break"),
        ("pat_a\nb", "line break"),
        ("pat_\x00b", "control character"),
        ("pat_\x1b[2J", "control character"),
        ("pat_\x7fb", "control character"),
        ("pat_\x85b", "control character"),  # C1: NEL (str.strip takes it at an end)
        ("pat_\x9fb", "control character"),
        ("pat_caf\u00e9", "other than ASCII"),  # raw only: base64 sends it
    ],
)
def test_a_token_a_header_cannot_carry_is_refused_before_sending(raw: str, why: str) -> None:
    with pytest.raises(UnusableToken, match=why):
        check_token(AccessToken(raw), "raw")


@pytest.mark.parametrize(
    "raw", ["pat_demo_acme_4c1f9e2b7a", "pat_~!@#$%^&*()_+ {}|:<>?", "pat_\xa0"]
)
def test_a_token_a_header_can_carry_passes(raw: str) -> None:
    check_token(AccessToken(raw), "base64")  # NBSP (U+00A0) is no control character
    if raw.isascii():
        check_token(AccessToken(raw), "raw")

"""Tokens never print; untrusted text loses every control character."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bottui.api.tokens import AccessToken, ProjectToken
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

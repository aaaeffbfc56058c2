"""The printed curl quotes every value so bash passes the very same bytes."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bottui.api.requests import shell_quote
from bottui.plaintext import has_control


def _bash_echo(quoted: str) -> bytes:
    return subprocess.run(
        ["bash", "-c", f"printf %s {quoted}"],
        capture_output=True,
        check=True,
        env={"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
    ).stdout


@pytest.mark.parametrize(
    "value",
    ["plain", "it's", 'a b"c', "\u202egnp.exe", "line\u2028sep", "c1\x9bx", "tab\tx", "ü/é\\'"],
)
def test_bash_receives_exact_bytes(value: str) -> None:
    quoted = shell_quote(value)
    assert not has_control(quoted)
    assert _bash_echo(quoted) == value.encode()


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.characters(exclude_characters="\x00", codec="utf-8"), max_size=12))
def test_any_text_round_trips_through_bash(value: str) -> None:
    assert _bash_echo(shell_quote(value)) == value.encode()

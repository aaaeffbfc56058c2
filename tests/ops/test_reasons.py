"""The reason rule (issue #13): one check in ops, used by every change of both faces."""

from __future__ import annotations

import pytest

from bottui.api.errors import EXIT_REFUSED, RefusedError, ValidationError
from bottui.ops import confirmation
from bottui.ops.session import Settings
from bottui.store.config.config_model import Config, Profile

REQUIRED = Settings("prod", "https://x", require_reason=True)


def test_blank_is_no_reason_and_anything_else_is_kept_exactly() -> None:
    assert confirmation.normalize_reason(None) is None
    assert confirmation.normalize_reason(" \t\n") is None
    hostile = " INC-1 \x1b[2J[b]x[/b] "
    assert confirmation.normalize_reason(hostile) == hostile
    assert (
        confirmation.normalize_reason("é" * confirmation.MAX_REASON)
        == "é" * confirmation.MAX_REASON
    )
    with pytest.raises(ValidationError) as caught:
        confirmation.normalize_reason("x" * (confirmation.MAX_REASON + 1))
    assert caught.value.exit_code == EXIT_REFUSED


def test_require_reason_refuses_without_one_and_read_only_comes_first() -> None:
    for missing in (None, "", "   "):
        with pytest.raises(RefusedError, match="Reason required") as caught:
            confirmation.enforce(REQUIRED, confirmed=True, reason=missing)
        assert caught.value.exit_code == EXIT_REFUSED
    confirmation.enforce(REQUIRED, confirmed=True, reason="INC-1")
    confirmation.enforce(Settings("p", "https://x"), confirmed=True)  # not required: fine
    read_only = Settings("prod", "https://x", read_only=True, require_reason=True)
    with pytest.raises(RefusedError, match="Read-only"):
        confirmation.enforce(read_only, confirmed=True, reason=None)
    assert confirmation.reason_refusal_text(REQUIRED, None) is not None
    assert confirmation.reason_refusal_text(REQUIRED, "why") is None


def test_the_operator_comes_from_the_environment_then_the_profile_then_the_config() -> None:
    profile = Profile("p", "https://x", operator="alice", require_reason=True)
    config = Config(current="p", profiles={"p": profile}, operator="team")
    settings = Settings.resolve(config, environ={})
    assert (settings.operator, settings.require_reason) == ("alice", True)
    assert Settings.resolve(config, environ={"BOTTUI_OPERATOR": "bob"}).operator == "bob"
    assert Settings.resolve(config, environ={"BOTTUI_OPERATOR": " "}).operator == "alice"
    bare = Config(current="p", profiles={"p": Profile("p", "https://x")}, operator="team")
    assert Settings.resolve(bare, environ={}).operator == "team"
    assert Settings.resolve(Config(), environ={}).operator is None  # the journal's user@host

"""One error root: every store error is a BottuiError, rendered by the one CLI renderer."""

from __future__ import annotations

import pytest

from bottui.api.errors import EXIT_CREDENTIALS, EXIT_REFUSED, BottuiError
from bottui.store.store_errors import (
    ConfigError,
    DatabaseUnavailable,
    InvalidValue,
    KeyringUnavailable,
    NotInInventory,
    ProfileExists,
    ProfileNotFound,
    StoreError,
    StoreFileError,
)
from tests.cli.helpers import cli

STORE_ERRORS = (
    StoreError,
    ConfigError,
    InvalidValue,
    ProfileExists,
    ProfileNotFound,
    DatabaseUnavailable,
    NotInInventory,
    StoreFileError,
)


@pytest.mark.parametrize("kind", STORE_ERRORS)
def test_every_store_error_is_a_refusal_under_the_one_root(kind: type[StoreError]) -> None:
    error = kind("Cannot do it", "because\nof this")
    assert isinstance(error, BottuiError)
    assert error.exit_code == EXIT_REFUSED
    assert (error.title, error.details, str(error)) == (
        "Cannot do it",
        "because\nof this",
        "Cannot do it",
    )
    assert error.to_json() == {
        "error": {
            "status": None,
            "message": "Cannot do it",
            "code": kind.__name__,
            "type": "local_error",
            "context": None,
        }
    }


def test_a_failing_keyring_is_a_credentials_error() -> None:
    error = KeyringUnavailable("Keyring locked", "unlock it")
    assert isinstance(error, BottuiError) and error.exit_code == EXIT_CREDENTIALS
    assert error.to_json()["error"]["code"] == "KeyringUnavailable"


def test_a_store_error_keeps_its_text_exit_code_and_json_in_the_cli() -> None:
    result = cli("profile", "use", "no-such-profile", "--json")
    assert result.code == EXIT_REFUSED
    assert result.err.startswith("error: ")
    doc = result.json()["error"]
    assert (doc["type"], doc["code"], doc["status"]) == ("local_error", "ProfileNotFound", None)


def test_a_refused_profile_is_the_one_validation_error_in_text_and_json() -> None:
    # Checked by bottui.ops.profiles (the TUI's first run uses the same check).
    result = cli("profile", "add", "p", "--base-url", "http://example.com")
    assert result.code == EXIT_REFUSED and result.out == ""
    assert result.err == (
        "error: Refused plain http\n"
        "  example.com is not a loopback host; use https:// so tokens are not sent in clear\n"
    )
    result = cli("profile", "add", "p", "--base-url", "http://example.com", "--json")
    doc = result.json()["error"]
    assert (doc["code"], doc["type"]) == ("ValidationError", "client_error")
    assert doc["message"].startswith("Refused plain http: example.com")
    assert cli("profile", "list", "--json").json()["profiles"] == []  # nothing written

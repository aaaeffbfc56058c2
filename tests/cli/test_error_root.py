"""One error root: every store error is a BottuiError, rendered by the one CLI renderer."""

from __future__ import annotations

import pytest

from bottui.api.errors import EXIT_CREDENTIALS, EXIT_REFUSED, BottuiError
from bottui.store.db_errors import DatabaseUnavailable, NotInInventory, StoreFileError
from bottui.store.errors import (
    ConfigError,
    InvalidValue,
    KeyringUnavailable,
    ProfileExists,
    ProfileNotFound,
    StoreError,
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

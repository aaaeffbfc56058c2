"""Transport words without reprs; the unknown-outcome note said once after retries (#27)."""

from __future__ import annotations

from aiohttp import ClientPayloadError
from aiohttp.http_exceptions import ContentLengthError

from bottui.api.errors import UNKNOWN_NOTE, NetworkError, without_unknown_note
from bottui.api.transport import error_text


def test_a_payload_error_is_said_in_words() -> None:
    cause = ContentLengthError("Not enough data to satisfy content length header.")
    error = ClientPayloadError("Response payload is not completed", cause)
    text = error_text(error, "answer cut short")
    assert text == "answer cut short: Not enough data to satisfy content length header"


def test_a_note_added_keeps_the_unknown_note_last_and_single() -> None:
    error = NetworkError("Connection lost", "answer cut short", ambiguous=True)
    error.add_note("gave up after 4 attempts")
    assert error.details == f"answer cut short; gave up after 4 attempts; {UNKNOWN_NOTE}"
    assert error.details.count(UNKNOWN_NOTE) == 1
    assert without_unknown_note(error.details) == "answer cut short; gave up after 4 attempts"

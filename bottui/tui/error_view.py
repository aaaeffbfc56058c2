"""The one TUI error renderer: any error becomes the words the app shows.

Every screen and dialog goes through here, so an error reads the same
wherever it appears: as a toast (:func:`error_toast`, with "press e for
details" when the service sent an error object), as the whole-error modal
(:func:`error_dialog`), as a line on a screen (:func:`error_line`, when a
hidden screen must not toast on every refresh), in a panel
(:func:`error_words`) or under a form field (:func:`field_words`). Titles and details pass through
:func:`bottui.plaintext.clean`; an unexpected exception is named, never
dumped (no traceback, no token).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from textual.content import Content

from bottui.api.errors import ApiError, BottuiError, ValidationError
from bottui.plaintext import clean
from bottui.tui.widgets.safe import join, safe

if TYPE_CHECKING:
    from textual.screen import ModalScreen


#: The errors a screen expects and shows (a failure the operator can act on,
#: not a bug): the one root, store errors included.
EXPECTED_ERRORS: Final = (BottuiError,)


def describe_error(error: BaseException) -> tuple[str, str]:
    """(title, details) of any error, without a traceback or a token."""
    if isinstance(error, BottuiError):
        return error.title, error.details
    # A bug, not an expected failure: name it, never dump its internals.
    message = clean(str(error), keep_newlines=True)[:300]
    return "Unexpected error", f"{type(error).__name__}: {message}"


@dataclass(frozen=True)
class Toast:
    """An error as a toast: cleaned text, ready for ``notify(markup=False)``."""

    message: str
    title: str


def error_toast(error: BaseException) -> Toast:
    """The toast of an error; an API error points at its details (key ``e``)."""
    title, details = describe_error(error)
    hint = "  (press e for details)" if isinstance(error, ApiError) else ""
    # Details may span lines (a server message, a store's explanation):
    # keep the line breaks; every other control character is replaced.
    message = clean(details, keep_newlines=True) + hint if details else hint.strip()
    return Toast(message=message, title=clean(title))


def error_line(
    lead: str, error: BaseException, *, sep: str = ". ", keep_newlines: bool = False
) -> Content:
    """``lead``, the error's title, ``sep`` and its details, for a line or panel on a screen."""
    title, details = describe_error(error)
    return join(lead, safe(title), sep, safe(details, keep_newlines=keep_newlines))


def error_text(error: BaseException) -> str:
    """``title: details`` (or the title alone), raw: the caller shows it as plain text."""
    title, details = describe_error(error)
    return f"{title}: {details}" if details else title


def error_title(error: BaseException) -> str:
    """The error's one-line title, raw: the caller shows it as plain text."""
    return describe_error(error)[0]


def error_words(error: BaseException) -> Content:
    """``title: details`` as plain text, for a panel or a line."""
    return safe(error_text(error))


def field_words(error: BaseException) -> Content:
    """The error under a form field: a validation error's message alone (the field is named),
    after its title when that says more than "Invalid FIELD"."""
    if isinstance(error, ValidationError) and not error.own_title:
        return safe(error.message)
    return error_words(error)


def error_object(error: BaseException) -> dict[str, Any] | None:
    """The service's error object (status, message, code...) of an error, if any."""
    if isinstance(error, BottuiError):
        obj: dict[str, Any] = error.to_json()["error"]
        return obj
    return None


def error_dialog(error: BaseException) -> ModalScreen[Any]:
    """The modal showing the whole error."""
    # Dialogs are imported when first shown: none is on the first frame.
    from bottui.tui.screens.dialogs import ErrorDialog

    title, details = describe_error(error)
    return ErrorDialog(title, details, error_object(error))

"""How a failure is said: the one TUI error renderer, and this session's error log.

Every screen and dialog goes through here, so an error reads the same
wherever it appears: as a toast (:func:`error_toast`, with "press e for
details" when the service sent an error object), as the whole-error modal
of the error log (with :func:`error_object`), as a line on a screen (:func:`error_line`, when a
hidden screen must not toast on every refresh), in a panel
(:func:`error_words`) or under a form field (:func:`field_words`). Titles and
details pass through :func:`bottui.plaintext.clean`; an unexpected exception
is named, never dumped (no traceback, no token).

Every failure the services report (:meth:`TuiServices.report`) is logged
in the :class:`ErrorLog`, so it stays findable after the toast is gone: when,
what was being done (the operation and its target, the URL), the HTTP status
and the message, and the service's whole error object. In memory only, for
the session; newest first; bounded (:data:`LIMIT`), so a long incident never
grows it without end.

A change's worker tags its error with the :class:`Attempt` it was making
(:func:`tag`), so the log and the token hint know the operation, the target
and which token the request carried even though the error reaches the
renderer through Textual's worker machinery.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

import msgspec
from textual.content import Content

from bottui.api.errors import ApiError, BottuiError, CredentialsError, RefusedError, ValidationError
from bottui.plaintext import clean
from bottui.tui.widgets.untrusted_text import join, safe

if TYPE_CHECKING:
    from bottui.api.requests import TokenKind
    from bottui.ops.planning import PlannedChange


# -- the one renderer ------------------------------------------------------------------

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


class Toast(msgspec.Struct, frozen=True):
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


# -- the session's error log -----------------------------------------------------------

#: How many errors the log keeps (the oldest go first).
LIMIT: Final = 500

#: The project and personal tokens, as the Projects screen names them, and its key.
TOKEN_WORDS: Final[dict[str, tuple[str, str, str]]] = {
    "project": ("project API token", "t", "BOTTUI_API_KEY"),
    "personal": ("personal access token", "p", "BOTTUI_ACCESS_TOKEN"),
}

_ATTR: Final = "_bottui_attempt"


class Attempt(msgspec.Struct, frozen=True):
    """What a call was doing when it failed: for the log, the panels and the token hint."""

    operation: str
    account: str = ""
    project: str = ""
    #: What it acted on, in words ("visitor id X", "rate limiter rl_1").
    target: str = ""
    url: str = ""
    token_kind: TokenKind | None = None

    @classmethod
    def of_plan(cls, plan: PlannedChange[Any], operation: str, target: str) -> Attempt:
        """The attempt of sending ``plan`` (its first request's URL and token)."""
        request = plan.requests[0] if plan.requests else None
        return cls(
            operation=operation,
            account=plan.account,
            project=plan.project,
            target=target,
            url=request.url if request is not None else "",
            token_kind=request.token_kind if request is not None else None,
        )

    @property
    def where(self) -> str:
        """``account / project · target`` (the parts known)."""
        parts = [f"{self.account} / {self.project}" if self.project else "", self.target]
        return " · ".join(p for p in parts if p)


def tag(error: BaseException, attempt: Attempt) -> None:
    """Remember on ``error`` the attempt it broke (read back by :func:`attempt_of`)."""
    setattr(error, _ATTR, attempt)


def attempt_of(error: BaseException) -> Attempt | None:
    """The attempt ``error`` was tagged with, if any."""
    found = getattr(error, _ATTR, None)
    return found if isinstance(found, Attempt) else None


def is_unknown(error: BaseException) -> bool:
    """True when the request may have arrived: the outcome is unknown, not failed."""
    return isinstance(error, BottuiError) and error.ambiguous


def outcome_word(entry: LoggedError) -> str:
    """The error log's Outcome: ``refused`` (nothing sent), ``unknown`` or ``failed``."""
    if entry.refused:
        return "refused"
    return "unknown" if entry.unknown else "failed"


def token_hint(error: BaseException, attempt: Attempt | None, *, short: bool = False) -> str:
    """Which token is wrong and how to fix it, for a 401/403 or a missing token; else "".

    ``short``: the keys alone, for a toast ("Fix: press 1, then p (personal access token).").
    """
    kind = attempt.token_kind if attempt is not None else None
    if isinstance(error, CredentialsError):
        # Its own title names the token ("No project API token").
        kind = kind or ("project" if "project" in error.title.lower() else "personal")
    elif not (isinstance(error, ApiError) and error.status in (401, 403)):
        return ""
    if kind is None:
        if short:
            return "Fix: press 1, then t or p (the project's tokens)."
        return (
            "Check the tokens: press 1, highlight the project, then t (project API token) "
            "or p (personal access token)."
        )
    name, key, env = TOKEN_WORDS[kind]
    if short:
        return f"Fix: press 1, then {key} ({name})."
    whose = ""
    if attempt is not None and attempt.project:
        whose = (
            f" of project {attempt.project}"
            if kind == "project"
            else f" of account {attempt.account}"
        )
    if isinstance(error, CredentialsError):
        what = f"No usable {name}{whose}."
    elif isinstance(error, ApiError) and error.status == 401:
        what = f"The {name}{whose} was not accepted (missing, wrong or expired)."
    else:
        what = f"The {name}{whose} lacks a permission or belongs to another account."
    return (
        f"{what} Fix: press 1, highlight the project, then {key} to store a new {name} "
        f"({env}, when set, wins over the keyring)."
    )


class LoggedError(msgspec.Struct, frozen=True):
    """One error of this session, as the error log lists it (raw: shown through ``clean``)."""

    at: datetime
    operation: str
    target: str
    url: str
    status: int | None
    title: str
    details: str
    #: True when the request may have arrived: the outcome is unknown.
    unknown: bool
    hint: str
    #: The service's error object (status, message, code, type, context), if any.
    error_object: dict[str, Any] | None
    #: True when bottui refused before sending: not a failure of the service.
    refused: bool = False

    @property
    def message(self) -> str:
        """``title: details``, on one line."""
        text = f"{self.title}: {self.details}" if self.details else self.title
        return clean(text)


class ErrorLog:
    """This session's errors, newest first, at most ``limit`` of them."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._entries: deque[LoggedError] = deque(maxlen=limit)

    def add(
        self,
        error: BaseException,
        at: datetime,
        attempt: Attempt | None,
        operation: str = "",
        target: str = "",
    ) -> LoggedError:
        """Log ``error`` (with what it was doing, when known) and return its entry.

        ``operation`` and ``target`` name what was refused or failed when no
        ``attempt`` does (a refusal comes before any request is planned).
        """
        title, details = describe_error(error)
        status = getattr(error, "status", None)
        entry = LoggedError(
            at=at,
            operation=attempt.operation if attempt is not None else operation,
            target=attempt.where if attempt is not None else target,
            url=attempt.url if attempt is not None else "",
            status=status if isinstance(status, int) else None,
            title=title,
            details=details,
            unknown=is_unknown(error),
            hint=token_hint(error, attempt),
            error_object=error_object(error),
            # Refused by bottui before anything was sent (read-only, "Cannot undo").
            refused=isinstance(error, RefusedError),
        )
        self._entries.appendleft(entry)
        return entry

    def __iter__(self) -> Iterator[LoggedError]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def latest(self) -> LoggedError | None:
        """The newest entry, if any."""
        return self._entries[0] if self._entries else None


class Failure(msgspec.Struct, frozen=True):
    """A failed or unknown attempt, in words a result panel shows (raw: shown cleaned)."""

    title: str
    details: str
    #: True when the request may have arrived: unknown, never "failed".
    unknown: bool
    #: Which token is wrong and how to fix it ("" when that is not the problem).
    hint: str

    @classmethod
    def of(cls, error: BaseException, attempt: Attempt | None = None) -> Failure:
        """The failure of ``error`` (its token hint from ``attempt``'s token kind)."""
        title, details = describe_error(error)
        return cls(title, details, is_unknown(error), token_hint(error, attempt))

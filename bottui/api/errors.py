"""One hierarchy of errors for every way an API call can go wrong.

The CLI and the TUI render these and nothing else: each error knows its
one-line ``title`` (what happened, in words an operator reads at 3 a.m.),
its ``details`` and its CLI ``exit_code`` (see CONVENTIONS.md). None of them
holds a token, and none chains to an httpx object: httpx's ``Headers`` repr
masks only ``Authorization``, so an ``X-Api-Key`` header would print in
clear in a traceback. The client raises these ``from None``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, NamedTuple

from bottui.plaintext import clean

EXIT_OK: Final = 0
EXIT_API: Final = 1
EXIT_REFUSED: Final = 2
EXIT_CREDENTIALS: Final = 3
EXIT_NETWORK: Final = 4
EXIT_INTERRUPTED: Final = 130


#: Said of a change whose request may have reached the service unanswered.
UNKNOWN_NOTE: Final = "the change may have been applied; check before repeating"


def without_unknown_note(details: str) -> str:
    """``details`` without the trailing :data:`UNKNOWN_NOTE` (for a headline that says it)."""
    for ending in (f"; {UNKNOWN_NOTE}", UNKNOWN_NOTE):
        if details.endswith(ending):
            return details[: -len(ending)]
    return details


class BottuiError(Exception):
    """Base of every error bottui reports to a person instead of a traceback.

    The one root: api, policy and store errors
    (:class:`bottui.store.store_errors.StoreError`) all derive from it, so a face
    catches this class alone and renders its ``title``, ``details``,
    ``exit_code`` and :meth:`to_json` (the CLI in :mod:`bottui.cli.output`).

    ``ambiguous`` is set when a request may have reached the service before
    the failure (a read timeout, a connection lost after sending, a gateway's
    502/504, or any final answer after such an attempt): the change's outcome
    is then *unknown*, never *failed*, and ``details`` ends with
    :data:`UNKNOWN_NOTE`.
    """

    exit_code: ClassVar[int] = EXIT_API
    title: str = "Something went wrong"
    ambiguous: bool = False

    def __init__(self, title: str | None = None, details: str = "") -> None:
        if title is not None:
            self.title = title
        self.details = details
        super().__init__(self.title)

    @property
    def details(self) -> str:
        """The details; with the unknown-outcome note when ``ambiguous``."""
        if not self.ambiguous:
            return self._details
        return f"{self._details}; {UNKNOWN_NOTE}" if self._details else UNKNOWN_NOTE

    @details.setter
    def details(self, value: str) -> None:
        self._details = value

    def add_note(self, note: str) -> None:
        """Add ``note`` to the details (before the unknown-outcome note, said once)."""
        self._details = f"{self._details}; {note}" if self._details else note

    def __str__(self) -> str:
        title = clean(self.title)
        return f"{title}: {clean(self.details)}" if self.details else title

    def to_json(self) -> dict[str, Any]:
        """The ``{"error": ...}`` document of ``--json`` output."""
        message = self.title if not self.details else f"{self.title}: {self.details}"
        return error_document(None, message, type(self).__name__, "client_error")


def error_document(
    status: int | None, message: str, code: str | None, kind: str | None, context: Any = None
) -> dict[str, Any]:
    """The ``{"error": ...}`` document of ``--json`` output, the shape of the API's error object."""
    return {
        "error": {
            "status": status,
            "message": message,
            "code": code,
            "type": kind,
            "context": context,
        }
    }


class RefusedError(BottuiError):
    """Refused before anything was sent: invalid input, unsafe URL, read-only."""

    exit_code: ClassVar[int] = EXIT_REFUSED


class ValidationError(RefusedError):
    """A value refused before anything is sent or written: the one validation error.

    The API's rules (:mod:`bottui.api.requests`) and the ops' checks of
    what an operator enters (:mod:`bottui.ops.profiles`,
    :mod:`bottui.ops.inventory_edits`) raise this alone. ``field`` names the
    input the value came from, so a form can put the message under it. The
    title is ``Invalid FIELD`` unless a check gives a sharper one ("Refused
    plain http"); then ``own_title`` is true and a form shows it too.
    """

    def __init__(self, field: str, message: str, *, title: str | None = None) -> None:
        self.field = field
        self.message = message
        #: True when ``title`` says more than ``Invalid FIELD``.
        self.own_title = title is not None
        super().__init__(title if title is not None else f"Invalid {field}", message)


class PlainHttpRefused(RefusedError):
    """A plain-http host resolved to an address that is not loopback: nothing was sent."""

    def __init__(self, host: str, addresses: tuple[str, ...]) -> None:
        self.host = host
        self.addresses = addresses
        super().__init__(
            "Refused plain http",
            f"{host} resolves to {', '.join(addresses)}, not only to loopback addresses; "
            "use https:// so tokens are not sent in clear",
        )


class CredentialsError(BottuiError):
    """No usable token for this operation."""

    exit_code: ClassVar[int] = EXIT_CREDENTIALS


class ErrorObject(NamedTuple):
    """The service's error body: message, code, type and optional context."""

    message: str
    code: str
    type: str
    context: Any = None

    @classmethod
    def parse(cls, data: object) -> ErrorObject | None:
        """Read an error object from a decoded body; None if it is not one.

        Tolerant: a body with a ``message`` but no ``code``/``type`` still
        parses (fields the service left out read as empty strings), so an
        operator sees whatever the server said.
        """
        if not isinstance(data, dict):
            return None
        # Some services nest the object: {"error": {...}}.
        inner = data.get("error")
        if isinstance(inner, dict) and "message" in inner:
            data = inner
        message = data.get("message")
        if not isinstance(message, str):
            return None
        code = data.get("code")
        kind = data.get("type")
        return cls(
            message=message,
            code=code if isinstance(code, str) else "",
            type=kind if isinstance(kind, str) else "",
            context=data.get("context"),
        )


_STATUS_TITLES: Final[dict[int, str]] = {
    400: "The service rejected the request (400)",
    401: "Not authenticated: the token is missing, wrong or expired (401)",
    403: "Not allowed: the token lacks a permission or scope, or is another account's (403)",
    404: "Not found: unknown account, project or id (404)",
    409: "Conflict: the service refused the change in its current state (409)",
    429: "Rate limited by the service (429)",
    500: "The service failed (500)",
    502: "Bad gateway (502)",
    503: "Service unavailable (503)",
    504: "Gateway timeout (504)",
}


class ApiError(BottuiError):
    """The service answered with an error status.

    ``error`` is its error object when the body held one; ``body_excerpt``
    keeps a short, cleaned excerpt of anything else it sent.
    """

    exit_code: ClassVar[int] = EXIT_API

    def __init__(
        self,
        status: int,
        error: ErrorObject | None,
        *,
        body_excerpt: str = "",
        attempts: int = 1,
    ) -> None:
        self.status = status
        self.error = error
        self.body_excerpt = body_excerpt
        self.attempts = attempts
        title = _STATUS_TITLES.get(status, f"The service answered HTTP {status}")
        details = error.message if error else body_excerpt
        super().__init__(title, details)

    def to_json(self) -> dict[str, Any]:
        err = self.error
        if err is None:
            return error_document(self.status, self.body_excerpt, None, None)
        return error_document(self.status, err.message, err.code, err.type, err.context)


class UnusableBodyError(BottuiError):
    """A success status with a body we cannot use: not JSON, not an object, too large."""

    exit_code: ClassVar[int] = EXIT_API
    title = "The service sent an unusable answer"
    #: The ``code`` of its ``--json`` document.
    code: ClassVar[str] = "unusable_body"

    def __init__(
        self, details: str, *, status: int = 200, context: dict[str, Any] | None = None
    ) -> None:
        self.status = status
        self.context = context
        super().__init__(None, details)

    def to_json(self) -> dict[str, Any]:
        message = f"{self.title}: {self.details}"
        return error_document(self.status, message, self.code, "client_error", self.context)


class ContradictingAnswer(UnusableBodyError):
    """A success answer that says the opposite of what was asked.

    The rate limiter activation answers the project: when it lists the
    limiter in the other state than the one sent, the change is not
    confirmed, whatever the status says. Exit 1, as any unusable answer.
    """

    title = "The service's answer contradicts the request"
    code: ClassVar[str] = "contradicting_answer"


class NetworkError(BottuiError):
    """No answer: the connection failed or the deadline passed, after retries.

    A connection that could not be made sent nothing: not ``ambiguous``.
    """

    exit_code: ClassVar[int] = EXIT_NETWORK

    def __init__(
        self, title: str, details: str = "", *, attempts: int = 1, ambiguous: bool = False
    ) -> None:
        self.attempts = attempts
        self.ambiguous = ambiguous
        super().__init__(title, details)

    def to_json(self) -> dict[str, Any]:
        context = {"attempts": self.attempts, "mayHaveArrived": self.ambiguous}
        return error_document(None, str(self), type(self).__name__, "network_error", context)


class ConnectionFailed(NetworkError):
    """The connection could not be made or was dropped."""


class DeadlineExceeded(NetworkError):
    """The operation's total deadline passed (retries included)."""

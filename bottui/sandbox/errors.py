"""The error object of the API and the statuses, codes and types the sandbox uses.

Every error answers ``{"message", "code", "type", "context"?}``:

======  ======================  =========================
status  code                    type
======  ======================  =========================
400     ``invalid_request``     ``validation_error``
401     ``unauthorized``        ``authentication_error``
403     ``forbidden``           ``permission_error``
404     ``not_found``           ``not_found_error``
405     ``method_not_allowed``  ``invalid_request_error``
413     ``payload_too_large``   ``invalid_request_error``
429     ``rate_limited``        ``rate_limit_error``
5xx     ``unavailable``         ``server_error``
======  ======================  =========================
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error answer: status, body fields and extra headers."""

    def __init__(
        self,
        status: int,
        code: str,
        type_: str,
        message: str,
        context: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.type = type_
        self.message = message
        self.context = context
        self.headers = dict(headers or {})

    def body(self, message: str | None = None) -> dict[str, Any]:
        """The error object; ``message`` replaces the message (hostile mode)."""
        out: dict[str, Any] = {
            "message": self.message if message is None else message,
            "code": self.code,
            "type": self.type,
        }
        if self.context is not None:
            out["context"] = self.context
        return out


def invalid(field: str, message: str) -> ApiError:
    """400: the request (body or path) is not valid; ``context.field`` names the culprit."""
    return ApiError(400, "invalid_request", "validation_error", message, {"field": field})


def unauthorized(message: str = "Missing or invalid X-Api-Key.") -> ApiError:
    """401: no credential, or one the service does not know."""
    return ApiError(401, "unauthorized", "authentication_error", message)


def forbidden(message: str, context: Any = None) -> ApiError:
    """403: the credential is known but does not allow this."""
    return ApiError(403, "forbidden", "permission_error", message, context)


def not_found(message: str, context: Any = None) -> ApiError:
    """404: no such path, project, rate limiter or dimension."""
    return ApiError(404, "not_found", "not_found_error", message, context)


def method_not_allowed(allowed: str) -> ApiError:
    """405 with an ``Allow`` header."""
    return ApiError(
        405,
        "method_not_allowed",
        "invalid_request_error",
        f"Method not allowed; use {allowed}.",
        {"allowed": [allowed]},
        {"allow": allowed},
    )


def too_large(limit: int) -> ApiError:
    """413: the body exceeds the sandbox's limit."""
    return ApiError(
        413,
        "payload_too_large",
        "invalid_request_error",
        "Request body too large.",
        {"limitBytes": limit},
    )


def rate_limited(retry_after: str) -> ApiError:
    """429 with ``Retry-After``."""
    return ApiError(
        429,
        "rate_limited",
        "rate_limit_error",
        "Too many requests; retry later.",
        {"retryAfter": retry_after},
        {"retry-after": retry_after},
    )


def unavailable(status: int) -> ApiError:
    """An injected 5xx."""
    return ApiError(status, "unavailable", "server_error", "The service is unavailable.")

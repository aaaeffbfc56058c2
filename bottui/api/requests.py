"""A request built and validated, before it is sent.

Building is separate from sending so that ``--dry-run`` can print exactly
what would go out, and the journal can record the body, without a token
ever being part of the object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

TokenKind = Literal["project", "personal"]
# The environment variable that holds each kind of token (CONVENTIONS.md).
TOKEN_ENV: Final[dict[str, str]] = {
    "project": "BOTTUI_API_KEY",
    "personal": "BOTTUI_ACCESS_TOKEN",
}


@dataclass(frozen=True)
class PreparedRequest:
    """Method, URL and body of one API call, and the kind of token it needs."""

    operation: str
    method: str
    url: str
    body: bytes
    token_kind: TokenKind

    def body_json(self) -> Any:
        """The body decoded, for the journal and for display."""
        return json.loads(self.body) if self.body else None

    @property
    def token_env(self) -> str:
        """Name of the environment variable for this request's kind of token."""
        return TOKEN_ENV[self.token_kind]

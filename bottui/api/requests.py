"""A request built and validated, before it is sent.

Building is separate from sending so that ``--dry-run`` can print exactly
what would go out, and the journal can record the body, without a token
ever being part of the object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from bottui.api.tokens import TOKEN_ENV

TokenKind = Literal["project", "personal"]


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

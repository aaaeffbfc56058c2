"""A request built and validated, before it is sent.

Building is separate from sending so that ``--dry-run`` can print exactly
what would go out, and the journal can record the body, without a token
ever being part of the object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from bottui.api.token_header import DEFAULT_ENCODING, TokenEncoding, shell_value
from bottui.api.tokens import TOKEN_ENV

TokenKind = Literal["project", "personal"]


@dataclass(frozen=True)
class PreparedRequest:
    """Method, URL and body of one API call, the kind of token it needs and how it is sent."""

    operation: str
    method: str
    url: str
    body: bytes
    token_kind: TokenKind
    #: How the token travels in ``X-Api-Key`` (the profile's ``token_encoding``).
    token_encoding: TokenEncoding = DEFAULT_ENCODING

    def body_json(self) -> Any:
        """The body decoded, for the journal and for display."""
        return json.loads(self.body) if self.body else None

    @property
    def token_env(self) -> str:
        """Name of the environment variable for this request's kind of token."""
        return TOKEN_ENV[self.token_kind]

    @property
    def token_shell(self) -> str:
        """The ``X-Api-Key`` value as a shell writes it: the variable, Base64-encoded if so sent."""
        return shell_value(self.token_env, self.token_encoding)

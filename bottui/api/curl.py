"""An equivalent ``curl`` command for a prepared request (``--dry-run``).

The token is never in it: the header reads ``"$BOTTUI_API_KEY"`` or
``"$BOTTUI_ACCESS_TOKEN"``, expanded by the shell that runs the command.
``--globoff`` stops curl from reading ``[]{}`` in ids as ranges and
``--path-as-is`` from folding dot segments, so the server sees the very same
request bottui would send.
"""

from __future__ import annotations

import shlex

from bottui.api.requests import PreparedRequest


def to_curl(request: PreparedRequest) -> str:
    """A bash command line that sends ``request``."""
    parts = [
        "curl",
        "--silent",
        "--show-error",
        "--globoff",
        "--path-as-is",
        "-X",
        request.method,
        shlex.quote(request.url),
        "-H",
        shlex.quote("Content-Type: application/json"),
        "-H",
        f'"X-Api-Key: ${request.token_env}"',
    ]
    if request.body:
        parts += ["--data-binary", shlex.quote(request.body.decode())]
    return " ".join(parts)

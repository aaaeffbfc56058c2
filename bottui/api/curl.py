"""An equivalent ``curl`` command for a prepared request (``--dry-run``).

The token is never in it: the header reads ``"$BOTTUI_API_KEY"`` or
``"$BOTTUI_ACCESS_TOKEN"``, expanded by the shell that runs the command
(under ``token_encoding = "base64"``, ``$(printf %s "$BOTTUI_API_KEY" |
base64 | tr -d '\n')``: the same value bottui sends).
``--globoff`` stops curl from reading ``[]{}`` in ids as ranges and
``--path-as-is`` from folding dot segments, so the server sees the very same
request bottui would send.
"""

from __future__ import annotations

import shlex

from bottui.api.requests import PreparedRequest
from bottui.plaintext import has_control


def quote(value: str) -> str:
    """Quote ``value`` for bash, printable even when it holds invisible characters.

    Plain text uses ``shlex.quote``. Text with characters a terminal must
    not receive raw (bidi overrides, line separators, C0/C1 controls) uses
    bash's ``$'...'`` form with ``\\uXXXX`` escapes, so the printed command is
    plain text and still sends the very same bytes.
    """
    if not has_control(value):
        return shlex.quote(value)
    out = []
    for ch in value:
        if has_control(ch):
            out.append(f"\\u{ord(ch):04x}" if ord(ch) >= 0x80 else f"\\x{ord(ch):02x}")
        elif ch in "\\'":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


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
        quote(request.url),
        "-H",
        shlex.quote("Content-Type: application/json"),
        "-H",
        f'"X-Api-Key: {request.token_shell}"',
    ]
    if request.body:
        parts += ["--data-binary", quote(request.body.decode())]
    return " ".join(parts)


def request_json(request: PreparedRequest) -> dict[str, str]:
    """``request`` as a dry run's JSON shows it: method, URL, body and :func:`to_curl`."""
    return {
        "method": request.method,
        "url": request.url,
        "body": request.body.decode(),
        "curl": to_curl(request),
    }


def request_lines(request: PreparedRequest) -> list[str]:
    """The lines a dry run shows for ``request``, without a trailing blank line.

    Method and URL, the token header (a shell variable, never the token),
    the content type, a blank line, the body, a blank line and the
    equivalent :func:`to_curl` command. The URL and body carry untrusted
    text: a caller that prints them passes each line through ``clean()``.
    """
    return [
        f"{request.method} {request.url}",
        f"X-Api-Key: {request.token_shell}",
        "Content-Type: application/json",
        "",
        request.body.decode(),
        "",
        to_curl(request),
    ]

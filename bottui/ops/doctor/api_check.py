"""The profile's base URL: reachable, TLS valid, and answering like the API.

One probe (:mod:`bottui.api.probe`): no token, the body ``{}``, made-up ids,
so nothing can change. The API refuses it with its error object
(``message``, ``code``, ``type``). What else can come back, and what it means:

* a 2xx: something accepted a request with no credential and no valid body.
  That is not how the API answers: a red flag (a wrong URL, a proxy that
  answers everything, a mock), and no token should be sent there;
* a 3xx: a redirect (to a login page, or http to https): not the API's path;
* an error status without the error object (an HTML page, a gateway's text):
  something else answers at this URL;
* no answer: refused, unknown host, a certificate that is not valid, timed out.
  A probe that timed out says so and what it waited for; it is a warning
  when the host still accepts a connection (a busy machine, a slow server),
  a problem only when it cannot be reached at all.

When the API answers with an authentication error (401, as it should to a
request without a token), the check names the profile's ``token_encoding``
once: the real service documents the ``X-Api-Key`` value as the
Base64-encoded token in places, and a token pasted as its console shows it
may then get the same 401 (:mod:`bottui.api.tokens`).
"""

from __future__ import annotations

from typing import Final

from bottui.api.errors import BottuiError, DeadlineExceeded
from bottui.api.probe import ProbeAnswer, accepts_connections, probe_api
from bottui.ops.doctor.model import Check, Verdict

_TITLE: Final = "API at the base URL"
_TLS_WORDS: Final = ("certificate", "ssl", "tls", "hostname mismatch")


async def check_api(
    base_url: str, *, timeout: float, source: str, token_encoding: str = "raw"
) -> Check:
    """Probe ``base_url`` (``source``: where it came from, a flag, the environment, a profile).

    Without a base URL there is nothing to probe: the caller skips the check.
    """
    try:
        answer = await probe_api(base_url, timeout=timeout)
    except BottuiError as exc:
        return Check(
            "api",
            _TITLE,
            Verdict.PROBLEM,
            f"{base_url} ({source}) is refused before sending: {exc}",
            "fix the base URL: https://host[:port] (plain http only to this machine)",
        )
    if isinstance(answer.failure, DeadlineExceeded):
        connects = await accepts_connections(base_url, timeout=min(timeout, 1.0))
        return _timed_out(base_url, source, answer, timeout, connects=connects)
    return _judge(base_url, source, answer, timeout, token_encoding)


def _timed_out(
    base_url: str, source: str, answer: ProbeAnswer, timeout: float, *, connects: bool
) -> Check:
    """The probe got no answer in time: slow (it connects) or unreachable (it does not)."""
    waited = (
        f"{base_url} ({source}): timed out after {timeout:g} s waiting for the answer to "
        f"one probe request (POST {answer.url})"
    )
    if connects:
        return Check(
            "api",
            _TITLE,
            Verdict.WARNING,
            f"{waited}; the server accepts connections, so it is reachable but slow "
            "(a busy machine, or a proxy holding the request)",
            "run bottui doctor again; if it stays slow, commands will hit their deadline too",
        )
    return Check(
        "api",
        _TITLE,
        Verdict.PROBLEM,
        f"{waited}; and no connection could be opened to it: not reachable",
        "check the base URL, the network and any proxy or firewall on the way",
    )


def _encoding_note(token_encoding: str) -> str:
    """The one sentence about ``token_encoding`` said beside an authentication error."""
    if token_encoding == "base64":
        return (
            '; tokens are sent Base64-encoded (token_encoding = "base64"): if commands get '
            '401, try token_encoding = "raw" (the contract\'s form)'
        )
    return (
        '; tokens are sent as they are (token_encoding = "raw"): if commands get 401 with a '
        'token pasted from the service\'s console, set token_encoding = "base64" in the '
        "profile (the real service documents the header as the Base64-encoded token)"
    )


def _judge(
    base_url: str, source: str, answer: ProbeAnswer, timeout: float, token_encoding: str
) -> Check:
    where = f"{base_url} ({source})"
    secure = base_url.lower().startswith("https://")
    transport = "TLS valid" if secure else "plain HTTP (loopback)"
    if answer.failure is not None:
        text = str(answer.failure)
        tls = secure and any(word in text.lower() for word in _TLS_WORDS)
        return Check(
            "api",
            _TITLE,
            Verdict.PROBLEM,
            f"{where}: {'TLS not valid: ' if tls else 'not reachable: '}{text}",
            "the server's certificate must be valid for this host name and trusted here "
            "(SSL_CERT_FILE names a private CA bundle)"
            if tls
            else "check the base URL, the network and any proxy; a timeout may be a firewall",
        )
    status = answer.status or 0
    if 200 <= status < 300:
        return Check(
            "api",
            _TITLE,
            Verdict.PROBLEM,
            f"{where}: answered HTTP {status} to a request with no token and no valid body; "
            "the API refuses that, so this is not the API (or something in front accepts "
            "anything): a red flag",
            "do not send tokens there until you know what answers; check the base URL",
        )
    if 300 <= status < 400:
        return Check(
            "api",
            _TITLE,
            Verdict.PROBLEM,
            f"{where}: answered with a redirect (HTTP {status}), not the API's error object",
            "use the URL the service's documentation gives (https, no login page in between)",
        )
    if answer.complete_error_object and answer.error is not None:
        err = answer.error
        note = _encoding_note(token_encoding) if status == 401 else ""
        return Check(
            "api",
            _TITLE,
            Verdict.OK,
            f"{where}: reachable, {transport}; answers like the API (HTTP {status}, "
            f"code {err.code!r}, type {err.type!r} to a request without a token){note}",
        )
    if answer.error is not None:
        return Check(
            "api",
            _TITLE,
            Verdict.WARNING,
            f"{where}: reachable, {transport}; HTTP {status} with a message "
            f"({answer.error.message!r}) but no code or type: a gateway in front of the API?",
            "if commands fail with this message, check the base URL's path and any proxy",
        )
    body = f": {answer.excerpt!r}" if answer.excerpt else " with an empty body"
    return Check(
        "api",
        _TITLE,
        Verdict.PROBLEM,
        f"{where}: reachable, {transport}; HTTP {status}{body}, not the API's error object",
        "this URL serves something else: check the base URL (scheme, host, port)",
    )


__all__ = ["check_api"]

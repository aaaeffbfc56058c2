"""The keyring: which backend keyring chose, and whether it answers in time."""

from __future__ import annotations

from collections.abc import Mapping

from bottui.api.tokens import TOKEN_ENV
from bottui.ops.doctor.model import Check, Verdict
from bottui.store.keyring_probe import probe_keyring
from bottui.store.tokens import TokenStore

_FIX = (
    f"set {TOKEN_ENV['personal']} and {TOKEN_ENV['project']} in the environment "
    "(they win over the keyring), or run under a Secret Service, or choose a backend: "
    "keyring --list-backends, PYTHON_KEYRING_BACKEND"
)


async def check_keyring(tokens: TokenStore, environ: Mapping[str, str]) -> Check:
    """Probe the keyring once; a failure is a problem unless the environment holds both tokens."""
    report = await probe_keyring(tokens)
    backend = report.backend or "unknown (it could not be named in time)"
    if report.failure is None:
        return Check("keyring", "Keyring", Verdict.OK, f"{backend} answers")
    reason = report.failure.details.split("\n", 1)[0]
    detail = f"{report.failure.title}: {reason} (backend: {backend})"
    if all(environ.get(name, "").strip() for name in TOKEN_ENV.values()):
        return Check(
            "keyring",
            "Keyring",
            Verdict.WARNING,
            f"{detail}; not needed while both tokens are in the environment",
            "to keep tokens in a keyring instead: run under a Secret Service, or choose a "
            "backend: keyring --list-backends, PYTHON_KEYRING_BACKEND",
        )
    return Check(
        "keyring",
        "Keyring",
        Verdict.PROBLEM,
        f"{detail}; tokens can be neither stored nor read",
        _FIX,
    )


__all__ = ["check_keyring"]

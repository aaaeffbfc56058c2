"""Open a profile's team store: which URL, checked, with its password if the keyring has one.

``BOTTUI_STORE_URL`` wins over the profile's ``store``; the demo reads
neither. The URL is checked before anything connects (no password in it,
verified TLS off loopback: :func:`bottui.store.team.target.check_store_url`).
The password is libpq's business (``~/.pgpass``, ``PGPASSWORD``, a client
certificate, ``PGSERVICE``) unless the keyring keeps one for this URL
(``bottui token set store``); ``PGPASSWORD`` wins over the keyring, as the
environment wins for the API tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bottui.store.config.model import Profile
from bottui.store.errors import KeyringUnavailable, StoreError
from bottui.store.keyring_tokens import TokenStore
from bottui.store.team.target import StoreTarget, check_store_url, resolve_store_url

if TYPE_CHECKING:
    from bottui.store.team.store import TeamStore


class NoTeamStore(StoreError):
    """Neither ``BOTTUI_STORE_URL`` nor the profile names a team store."""


def store_target(profile: Profile | None, environ: Mapping[str, str]) -> StoreTarget:
    """The checked team store of ``profile`` (or ``BOTTUI_STORE_URL``)."""
    url = resolve_store_url(None if profile is None else profile.store, environ)
    if url is None:
        raise _no_team_store()
    return check_store_url(url, environ)


def _no_team_store() -> NoTeamStore:
    return NoTeamStore(
        "No team store is configured",
        'Set store = "postgresql://..." in the profile, or BOTTUI_STORE_URL.',
    )


async def open_team_store(
    profile: Profile | None, environ: Mapping[str, str], tokens: TokenStore
) -> TeamStore:
    """The team store of ``profile``, ready to connect on first use."""
    return await _open(store_target(profile, environ), environ, tokens)


async def open_team_store_url(
    url: str, environ: Mapping[str, str], tokens: TokenStore, *, timeout: float = 5.0
) -> TeamStore:
    """The team store at ``url`` (checked first), with a short timeout: the push's."""
    return await _open(check_store_url(url, environ), environ, tokens, timeout=timeout)


async def _open(
    target: StoreTarget,
    environ: Mapping[str, str],
    tokens: TokenStore,
    *,
    timeout: float | None = None,
) -> TeamStore:
    from bottui.store.team.store import DEFAULT_TIMEOUT, TeamStore

    password = None
    if not environ.get("PGPASSWORD"):
        try:
            password = await tokens.store_password_async(target.keyring_username)
        except KeyringUnavailable:
            # A server reached over SSH often has no keyring at all: the store's
            # password is then libpq's business (~/.pgpass, PGSERVICE, a
            # certificate), as it is for every PostgreSQL client there.
            password = None
    return TeamStore(target, password=password, timeout=timeout or DEFAULT_TIMEOUT)


__all__ = ["NoTeamStore", "open_team_store", "open_team_store_url", "store_target"]

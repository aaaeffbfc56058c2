"""The tokens in use, remembered so that text kept before #10.2 is masked when read.

A journal written before server text was scrubbed may hold a token a server
echoed. Whoever reads such text back (the ``journal`` command, its exports,
the Journal screen) first makes the tokens in use known to
:mod:`bottui.api.scrub`: the environment's (:func:`remember_environment`,
cheap, always) and, awaited off the event loop, the keyring's tokens of the slots the entries name
(:func:`remember_slots`). A keyring that cannot answer leaves the
environment's tokens as the ones masked; reading goes on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Final

from bottui.api.scrub import remember
from bottui.api.tokens import TOKEN_ENV
from bottui.store.errors import KeyringUnavailable
from bottui.store.journal_records import JournalEntry
from bottui.store.tokens import TokenStore

#: Most keyring slots looked up for one read (each is a keyring call).
MAX_SLOTS: Final = 32


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """Remember ``BOTTUI_API_KEY`` and ``BOTTUI_ACCESS_TOKEN`` when set."""
    env = os.environ if environ is None else environ
    for name in TOKEN_ENV.values():
        value = env.get(name)
        if value:
            remember(value)


def _slots(entries: Iterable[JournalEntry]) -> list[tuple[str, str, str | None]]:
    """(base URL, account, project or None) of each token the entries' changes used."""
    found: dict[tuple[str, str, str | None], None] = {}
    for entry in entries:
        if not isinstance(entry.base_url, str) or not isinstance(entry.account, str):
            continue
        found[(entry.base_url, entry.account, None)] = None
        if isinstance(entry.project, str):
            found[(entry.base_url, entry.account, entry.project)] = None
        if len(found) >= MAX_SLOTS:
            break
    return list(found)[:MAX_SLOTS]


async def remember_slots(tokens: TokenStore, entries: Iterable[JournalEntry]) -> None:
    """Remember the tokens (environment, then keyring) of the slots ``entries`` name.

    The keyring is awaited through the store's async twins (its own timeout,
    off the event loop). Stops at the first keyring failure.
    """
    remember_environment()
    try:
        for base_url, account, project in _slots(entries):
            token = (
                await tokens.personal_async(base_url, account)
                if project is None
                else await tokens.project_async(base_url, account, project)
            )
            if token is not None:
                remember(token.reveal())
    except KeyringUnavailable:
        return


__all__ = ["MAX_SLOTS", "remember_environment", "remember_slots"]

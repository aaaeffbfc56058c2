"""The tokens in use, remembered so that text kept before #10.2 is masked when read.

A journal written before server text was scrubbed may hold a token a server
echoed. Whoever reads such text back (the ``journal`` command, its exports,
the Journal screen) first makes the tokens in use known to
:mod:`bottui.api.tokens`: the environment's (:func:`remember_environment`,
cheap, always) and, awaited off the event loop, the keyring's tokens of the slots the entries name
(:func:`remember_slots`). A keyring that cannot answer leaves the
environment's tokens as the ones masked; reading goes on.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from typing import Final, TypeAlias

from bottui.api.tokens import TOKEN_ENV, remember
from bottui.store.env_tokens import profile_variables
from bottui.store.errors import KeyringUnavailable
from bottui.store.journal.records import JournalEntry
from bottui.store.tokens import TokenStore

#: Most keyring slots looked up for one read (each is a keyring call).
MAX_SLOTS: Final = 32


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """Remember ``BOTTUI_API_KEY`` and ``BOTTUI_ACCESS_TOKEN`` when set, and every
    profile's own (``BOTTUI_API_KEY_<PROFILE>``, ...)."""
    env = os.environ if environ is None else environ
    for name in (*TOKEN_ENV.values(), *profile_variables(env)):
        value = env.get(name)
        if value:
            remember(value)


#: (base URL, account, project or None): where a token is kept.
Slot: TypeAlias = tuple[str, str, str | None]


def _slots(entries: Iterable[JournalEntry], skip: Collection[Slot] = ()) -> list[Slot]:
    """(base URL, account, project or None) of each token the entries' changes used.

    At most :data:`MAX_SLOTS` not in ``skip``.
    """
    found: dict[Slot, None] = {}
    for entry in entries:
        if not isinstance(entry.base_url, str) or not isinstance(entry.account, str):
            continue
        personal = (entry.base_url, entry.account, None)
        if personal not in skip:
            found[personal] = None
        if isinstance(entry.project, str):
            project = (entry.base_url, entry.account, entry.project)
            if project not in skip:
                found[project] = None
        if len(found) >= MAX_SLOTS:
            break
    return list(found)[:MAX_SLOTS]


class SlotTokens:
    """Remembers the keyring's tokens of the slots entries name, each slot once.

    A long read (``bottui journal --all``, an export) goes page by page: each
    page's slots not asked yet are looked up, and no more than
    :data:`MAX_SLOTS` in all, so ten million entries cost what one page
    costs. Stops asking at the first keyring failure. Without ``tokens`` only
    the environment's tokens are remembered.
    """

    def __init__(self, tokens: TokenStore | None) -> None:
        self._tokens = tokens
        self._asked: set[Slot] = set()
        self._environment_done = False
        self._keyring_failed = False

    async def remember(self, entries: Iterable[JournalEntry]) -> None:
        """Remember the tokens (environment, then keyring) of the new slots ``entries`` name."""
        if not self._environment_done:
            remember_environment()
            self._environment_done = True
        tokens = self._tokens
        if tokens is None or self._keyring_failed:
            return
        room = MAX_SLOTS - len(self._asked)
        if room <= 0:
            return
        fresh = _slots(entries, skip=self._asked)
        try:
            for base_url, account, project in fresh[:room]:
                self._asked.add((base_url, account, project))
                token = (
                    await tokens.personal_async(base_url, account)
                    if project is None
                    else await tokens.project_async(base_url, account, project)
                )
                if token is not None:
                    remember(token.reveal())
        except KeyringUnavailable:
            self._keyring_failed = True


async def remember_slots(tokens: TokenStore, entries: Iterable[JournalEntry]) -> None:
    """Remember the tokens (environment, then keyring) of the slots ``entries`` name.

    The keyring is awaited through the store's async twins (its own timeout,
    off the event loop). Stops at the first keyring failure.
    """
    await SlotTokens(tokens).remember(entries)


__all__ = ["MAX_SLOTS", "SlotTokens", "remember_environment", "remember_slots"]

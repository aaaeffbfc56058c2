"""Token slots: read their state, store or delete a token, remember the tokens in use; off the loop.

A *slot* is where one token belongs: the personal access token of an
account, or the project API token of a project. The TUI shows the state of
each slot (stored / missing / from environment), never a value. Every call
here awaits :class:`~bottui.store.keyring_tokens.TokenStore`'s ``*_async`` twins
(one daemon thread of the store executor, the keyring's own timeout), since
the keyring can block for seconds; a keyring that fails turns into a per-slot
:class:`~bottui.store.store_errors.KeyringUnavailable`, not into a lost screen.

The tokens in use are remembered, so that text kept before #10.2 is masked when read: a
journal written before server text was scrubbed may hold a token a server echoed.
Whoever reads such text back (the ``journal`` command, its exports, the Journal screen)
first makes the tokens in use known to :mod:`bottui.api.tokens` (:class:`SlotTokens`):
the environment's (:func:`remember_environment`, cheap, always) and, awaited off the
event loop, the keyring's tokens of the slots the entries name. A keyring that cannot
answer leaves the environment's tokens as the ones masked; reading goes on.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Final, Literal, TypeAlias

import msgspec

from bottui.api.tokens import TOKEN_ENV, AccessToken, ProjectToken, Secret, remember
from bottui.store.keyring_tokens import PROBE_USERNAME, TokenState, TokenStore
from bottui.store.store_errors import KeyringUnavailable
from bottui.store.token_sources import personal_username, profile_variables, project_username

if TYPE_CHECKING:
    from bottui.store.journal.journal_records import JournalEntry

SlotKind = Literal["personal", "project"]


class Slot(msgspec.Struct, frozen=True):
    """Where one token belongs.

    ``project`` is ``None`` for a personal access token (one per account) and
    the project id for a project API token.
    """

    kind: SlotKind
    account: str
    project: str | None = None

    def __post_init__(self) -> None:
        if (self.kind == "project") != (self.project is not None):
            raise ValueError("a project slot needs a project id; a personal slot has none")

    @classmethod
    def personal(cls, account: str) -> Slot:
        """The personal access token slot of ``account``."""
        return cls("personal", account)

    @classmethod
    def for_project(cls, account: str, project: str) -> Slot:
        """The project API token slot of ``account``/``project``."""
        return cls("project", account, project)

    @property
    def label(self) -> str:
        """What the token is called: "personal access token" or "project API token"."""
        return "personal access token" if self.kind == "personal" else "project API token"

    @property
    def env_var(self) -> str:
        """The environment variable that wins over the keyring for this slot."""
        return TOKEN_ENV[self.kind]

    def wrap(self, value: str) -> Secret:
        """``value`` in the wrapper type of this slot (raises ValueError when blank)."""
        return AccessToken(value) if self.kind == "personal" else ProjectToken(value)


#: What reading one slot gave: its state, or why the keyring could not tell.
Reading = TokenState | KeyringUnavailable


def _username(base_url: str, slot: Slot) -> str:
    if slot.project is None:
        return personal_username(base_url, slot.account)
    return project_username(base_url, slot.account, slot.project)


def _kind(slot: Slot) -> type[AccessToken] | type[ProjectToken]:
    return AccessToken if slot.project is None else ProjectToken


async def _state(tokens: TokenStore, base_url: str, slot: Slot) -> TokenState:
    if slot.project is None:
        return await tokens.personal_state_async(base_url, slot.account)
    return await tokens.project_state_async(base_url, slot.account, slot.project)


#: Slots read per trip to the store thread. One keyring timeout (4 s) bounds each trip:
#: small enough that a slow D-Bus keyring (~5 ms a read) stays well inside it.
BATCH = 100


async def read_states(
    tokens: TokenStore, base_url: str, slots: Iterable[Slot]
) -> dict[Slot, Reading]:
    """The state of every slot; a keyring failure is that slot's reading, not an error.

    Read in batches of :data:`BATCH`, each one trip to the store thread (not
    one per slot: 5,000 projects were 10,000 hand-overs). After a keyring
    call has timed out the store fails the following calls fast, so a hung
    keyring costs one timeout, not one per batch.
    """
    out: dict[Slot, Reading] = {}
    todo: list[Slot] = []
    for slot in dict.fromkeys(slots):
        # The environment first, slot by slot: a keyring that fails must not hide
        # it, and two variables claiming one slot refuse that slot alone.
        try:
            in_env = tokens.environment_state(base_url, slot.account, slot.project)
        except KeyringUnavailable as exc:
            out[slot] = exc
            continue
        if in_env is None:
            todo.append(slot)
        else:
            out[slot] = in_env
    for start in range(0, len(todo), BATCH):
        batch = todo[start : start + BATCH]
        names = {_username(base_url, slot): slot for slot in batch}
        kinds = [(name, _kind(slot)) for name, slot in names.items()]
        try:
            found = await tokens.states_async(kinds)
        except KeyringUnavailable as exc:
            out.update(dict.fromkeys(batch, exc))
            continue
        for name, slot in names.items():
            out[slot] = found[name]
    return out


async def keyring_answers(tokens: TokenStore) -> None:
    """Ask the keyring one harmless read: before a secret is asked for, not after.

    Raises:
        KeyringUnavailable: the keyring is absent, locked, failing or too slow.
    """
    await tokens.store_password_async(PROBE_USERNAME)


async def store_token(tokens: TokenStore, base_url: str, slot: Slot, token: Secret) -> TokenState:
    """Put ``token`` in the keyring for ``slot``; the slot's state afterwards.

    Raises:
        KeyringUnavailable: the keyring is absent, locked, failing or too slow.
    """
    if slot.project is None:
        if not isinstance(token, AccessToken):
            raise TypeError("a personal slot takes an AccessToken")
        await tokens.set_personal_async(base_url, slot.account, token)
    else:
        if not isinstance(token, ProjectToken):
            raise TypeError("a project slot takes a ProjectToken")
        await tokens.set_project_async(base_url, slot.account, slot.project, token)
    return await _state(tokens, base_url, slot)


async def delete_token(tokens: TokenStore, base_url: str, slot: Slot) -> tuple[bool, TokenState]:
    """Remove the keyring's token of ``slot``: (whether one was stored, state afterwards).

    The state afterwards may still be "from environment".

    Raises:
        KeyringUnavailable: the keyring is absent, locked, failing or too slow.
    """
    if slot.project is None:
        removed = await tokens.delete_personal_async(base_url, slot.account)
    else:
        removed = await tokens.delete_project_async(base_url, slot.account, slot.project)
    return removed, await _state(tokens, base_url, slot)


# -- the tokens in use -----------------------------------------------------------------------

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
SlotKey: TypeAlias = tuple[str, str, str | None]


def _slots(entries: Iterable[JournalEntry], skip: Collection[SlotKey] = ()) -> list[SlotKey]:
    """(base URL, account, project or None) of each token the entries' changes used.

    At most :data:`MAX_SLOTS` not in ``skip``.
    """
    found: dict[SlotKey, None] = {}
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
        self._asked: set[SlotKey] = set()
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

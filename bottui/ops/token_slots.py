"""Token slots of the inventory: read their state, store or delete a token, off the event loop.

A *slot* is where one token belongs: the personal access token of an
account, or the project API token of a project. The TUI shows the state of
each slot (stored / missing / from environment), never a value. Every call
here awaits :class:`~bottui.store.keyring_tokens.TokenStore`'s ``*_async`` twins
(one daemon thread of the store executor, the keyring's own timeout), since
the keyring can block for seconds; a keyring that fails turns into a per-slot
:class:`~bottui.store.errors.KeyringUnavailable`, not into a lost screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from bottui.api.tokens import TOKEN_ENV, AccessToken, ProjectToken, Secret
from bottui.store.errors import KeyringUnavailable
from bottui.store.keyring_tokens import TokenState, TokenStore
from bottui.store.token_sources import personal_username, project_username

SlotKind = Literal["personal", "project"]


@dataclass(frozen=True)
class Slot:
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
    from bottui.store.keyring_tokens import PROBE_USERNAME

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

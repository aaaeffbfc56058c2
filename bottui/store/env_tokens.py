"""Tokens from the environment, and which slot each one is tied to.

Two kinds of names, read in this order for a slot (a personal access token
per base URL and account; a project API token per base URL, account and
project):

1. ``BOTTUI_API_KEY_<PROFILE>`` / ``BOTTUI_ACCESS_TOKEN_<PROFILE>``: the
   token of one profile, *tied* to that profile's base URL, account (and,
   for a project API token, project). ``<PROFILE>`` is the profile's name in
   upper case, and only a name of ``[A-Za-z0-9_]`` has one (``shop_prod`` ->
   ``BOTTUI_API_KEY_`` + ``SHOP_PROD``; ``shop-prod`` has none). Such a token is
   given to its own slot and to no other.
2. ``BOTTUI_API_KEY`` / ``BOTTUI_ACCESS_TOKEN``: one token *not tied* to a
   project (an account): used for any slot the first kind does not fill, as
   it always was, but said so ("from the environment: not tied to a
   project"), since bottui cannot know which project it belongs to.

A mapping that could send a token to another project is refused, never
guessed (:class:`EnvTokenAmbiguous`, exit 3): two profiles whose names give
the same variable (``prod`` and ``PROD``), or two profiles' variables both
claiming one slot with different tokens. A profile without the account (or
project) its token needs ties it to nothing: it is ignored, and
:func:`unmatched` lets ``doctor`` say so.

The same names come from systemd's credentials directory for ``run-due``
(:mod:`bottui.store.credentials_dir`). Nothing here ever returns a value
for display: callers wrap it in the slot's secret type.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from bottui.api.tokens import TOKEN_ENV
from bottui.store.errors import KeyringUnavailable
from bottui.store.token_names import normalize_base_url

if TYPE_CHECKING:
    from bottui.store.config.model import Config

TokenKind = Literal["personal", "project"]

#: The profile names that have variables of their own.
PROFILE_NAME: Final = re.compile(r"[A-Za-z0-9_]+")


class EnvTokenAmbiguous(KeyringUnavailable):
    """Two environment tokens could be this slot's: refused, never guessed (exit 3).

    A :class:`KeyringUnavailable` so that every reader of a slot (the TUI's
    cells, ``token status``, a change) treats it as "no usable token here".
    """


@dataclass(frozen=True)
class EnvScope:
    """Where a profile's own environment tokens belong."""

    profile: str
    base_url: str
    account: str | None
    project: str | None


@dataclass(frozen=True)
class EnvToken:
    """A token found in the environment: its value, its variable, whether it is tied."""

    value: str
    variable: str
    #: True: a profile's own variable, for this very slot; False: the bare one.
    tied: bool

    def __repr__(self) -> str:
        return f"EnvToken(variable={self.variable!r}, tied={self.tied})"


def variable(kind: TokenKind, profile: str) -> str | None:
    """The variable holding ``profile``'s token of ``kind`` (None: the name has none)."""
    if PROFILE_NAME.fullmatch(profile) is None:
        return None
    return f"{TOKEN_ENV[kind]}_{profile.upper()}"


def scopes_of(config: Config) -> tuple[EnvScope, ...]:
    """Where each profile of ``config`` puts its own environment tokens."""
    return tuple(
        EnvScope(p.name, p.base_url, p.account, p.project) for p in config.profiles.values()
    )


def _value(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name)
    return value if value and value.strip() else None


def _claims(
    scope: EnvScope, kind: TokenKind, base_url: str, account: str, project: str | None
) -> bool:
    if scope.account is None or scope.account != account:
        return False
    if kind == "project" and (scope.project is None or scope.project != project):
        return False
    return normalize_base_url(scope.base_url) == normalize_base_url(base_url)


def find(
    environ: Mapping[str, str],
    scopes: Sequence[EnvScope],
    kind: TokenKind,
    base_url: str,
    account: str,
    project: str | None = None,
) -> EnvToken | None:
    """The environment's token for one slot, tied first; None when it holds none.

    Raises:
        EnvTokenAmbiguous: two variables could be this slot's (see the module).
    """
    by_name: dict[str, list[EnvScope]] = {}
    for scope in scopes:
        name = variable(kind, scope.profile)
        if name is not None:
            by_name.setdefault(name, []).append(scope)
    found: dict[str, str] = {}
    for name, owners in by_name.items():
        value = _value(environ, name)
        if value is None or not any(_claims(s, kind, base_url, account, project) for s in owners):
            continue
        if len(owners) > 1:
            profiles = ", ".join(sorted(s.profile for s in owners))
            raise EnvTokenAmbiguous(
                f"{name} is refused: it names several profiles",
                f"profiles {profiles} all read {name}; rename one of them, or keep this "
                "token in the keyring (bottui token set ...)",
            )
        found[name] = value
    if len(set(found.values())) > 1:
        names = ", ".join(sorted(found))
        raise EnvTokenAmbiguous(
            "Several environment tokens claim this slot",
            f"{names} are set to different tokens for the same base URL, account"
            + (" and project" if kind == "project" else "")
            + "; unset all but one",
        )
    if found:
        name = sorted(found)[0]
        return EnvToken(found[name], name, tied=True)
    bare = TOKEN_ENV[kind]
    value = _value(environ, bare)
    return None if value is None else EnvToken(value, bare, tied=False)


def profile_variables(environ: Mapping[str, str]) -> list[str]:
    """Every per-profile token variable set in ``environ`` (names only)."""
    prefixes = tuple(f"{name}_" for name in TOKEN_ENV.values())
    return sorted(n for n in environ if n.startswith(prefixes) and _value(environ, n))


def unmatched(environ: Mapping[str, str], scopes: Sequence[EnvScope]) -> list[str]:
    """Per-profile variables set that give their token to no slot (a typo, a
    profile renamed, ``shop-prod``'s dash): what ``doctor`` warns about."""
    usable: set[str] = set()
    for scope in scopes:
        for kind in ("personal", "project"):
            name = variable(kind, scope.profile)
            needs_project = kind == "project"
            if name and scope.account and (scope.project or not needs_project):
                usable.add(name)
    return [n for n in profile_variables(environ) if n not in usable]


__all__ = [
    "PROFILE_NAME",
    "EnvScope",
    "EnvToken",
    "EnvTokenAmbiguous",
    "TokenKind",
    "find",
    "profile_variables",
    "scopes_of",
    "unmatched",
    "variable",
]

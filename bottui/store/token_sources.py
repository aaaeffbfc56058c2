"""Where a token comes from besides the keyring, and the name of each slot.

* The keyring names of the slots (:data:`SERVICE`, :func:`personal_username`,
  :func:`project_username`, :func:`store_username`): JSON, so no id can make
  two slots collide. No keyring is needed to name them.
* Tokens from the environment (:func:`find`), tied to one profile's slot or
  not, refused when two could be a slot's (:class:`EnvTokenAmbiguous`).
* Tokens from systemd's credentials directory, for ``run-due``
  (:func:`read_credentials`).

:mod:`bottui.store.keyring_tokens` reads and writes the keyring itself.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import urlsplit, urlunsplit

import msgspec

from bottui.api.tokens import TOKEN_ENV
from bottui.store.store_errors import KeyringUnavailable, StoreError

if TYPE_CHECKING:
    from bottui.store.config.config_model import Config


# Which keyring entry holds which token: the service name and the usernames.
#
# A slot is named by the kind of token, the normalised base URL and the
# account (and project): JSON, so no separator in an id can make two slots
# share a name. Kept apart from :mod:`bottui.store.keyring_tokens` (which reads and
# writes the keyring with timeouts) because naming needs no keyring at all.

#: The keyring service every bottui token is stored under.
SERVICE: Final = "bottui"


_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def normalize_base_url(base_url: str) -> str:
    """Canonical form of a base URL, so ``https://X/`` and ``https://x`` share tokens.

    Lower-cases the scheme and host, drops the scheme's default port and any
    trailing ``/``. The path keeps its case. Never raises: a string that is
    not a URL comes back stripped of surrounding blanks and trailing slashes.
    """
    text = base_url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text.rstrip("/")
    if not parts.scheme or not parts.netloc:
        return text.rstrip("/")
    scheme = parts.scheme.lower()
    userinfo, at, hostport = parts.netloc.rpartition("@")
    hostport = hostport.lower()
    if port is not None and _DEFAULT_PORTS.get(scheme) == port:
        hostport = hostport[: hostport.rindex(":")]
    netloc = f"{userinfo}{at}{hostport}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, parts.fragment))


def personal_username(base_url: str, account: str) -> str:
    """The keyring username of the personal access token of ``account``."""
    return json.dumps(["personal", normalize_base_url(base_url), account])


def project_username(base_url: str, account: str, project: str) -> str:
    """The keyring username of the project API token of ``account``/``project``."""
    return json.dumps(["project", normalize_base_url(base_url), account, project])


def store_username(store_url: str) -> str:
    """The keyring username of a team store's password: ``["store", URL]``.

    The URL carries no password (such a URL is refused before it gets here).
    """
    return json.dumps(["store", normalize_base_url(store_url)])


# Tokens from the environment, and which slot each one is tied to.
#
# Two kinds of names, read in this order for a slot (a personal access token
# per base URL and account; a project API token per base URL, account and
# project):
#
# 1. ``BOTTUI_API_KEY_<PROFILE>`` / ``BOTTUI_ACCESS_TOKEN_<PROFILE>``: the
#    token of one profile, *tied* to that profile's base URL, account (and,
#    for a project API token, project). ``<PROFILE>`` is the profile's name in
#    upper case, and only a name of ``[A-Za-z0-9_]`` has one (``shop_prod`` ->
#    ``BOTTUI_API_KEY_`` + ``SHOP_PROD``; ``shop-prod`` has none). Such a token is
#    given to its own slot and to no other.
# 2. ``BOTTUI_API_KEY`` / ``BOTTUI_ACCESS_TOKEN``: one token *not tied* to a
#    project (an account): used for any slot the first kind does not fill, as
#    it always was, but said so ("from the environment: not tied to a
#    project"), since bottui cannot know which project it belongs to.
#
# A mapping that could send a token to another project is refused, never
# guessed (:class:`EnvTokenAmbiguous`, exit 3): two profiles whose names give
# the same variable (``prod`` and ``PROD``), or two profiles' variables both
# claiming one slot with different tokens. A profile without the account (or
# project) its token needs ties it to nothing: it is ignored, and
# :func:`unmatched` lets ``doctor`` say so.
#
# The same names come from systemd's credentials directory for ``run-due``
# (:mod:`bottui.store.token_sources`). Nothing here ever returns a value
# for display: callers wrap it in the slot's secret type.


TokenKind = Literal["personal", "project"]

#: The profile names that have variables of their own.
PROFILE_NAME: Final = re.compile(r"[A-Za-z0-9_]+")


class EnvTokenAmbiguous(KeyringUnavailable):
    """Two environment tokens could be this slot's: refused, never guessed (exit 3).

    A :class:`KeyringUnavailable` so that every reader of a slot (the TUI's
    cells, ``token status``, a change) treats it as "no usable token here".
    """


class EnvScope(msgspec.Struct, frozen=True):
    """Where a profile's own environment tokens belong."""

    profile: str
    base_url: str
    account: str | None
    project: str | None


class EnvToken(msgspec.Struct, frozen=True):
    """A token found in the environment: its value, its variable, whether it is tied."""

    value: str
    variable: str
    #: True: a profile's own variable, for this very slot; False: the bare one.
    tied: bool

    def __repr__(self) -> str:
        return f"EnvToken(variable={self.variable!r}, tied={self.tied})"

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        # Rich prefers this to __repr__ (Textual's crash report prints each frame's
        # locals with Rich), and a Struct's own lists every field, the value too.
        return [("variable", self.variable), ("tied", self.tied)]


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


# Tokens from systemd's credentials (``LoadCredential=``), for ``bottui run-due``.
#
# systemd puts each credential in a file of ``$CREDENTIALS_DIRECTORY``, a
# directory only the service can read, that exists while it runs: no token in
# the unit file, the environment of other processes, or the journal.
# :func:`read_credentials` reads the two bottui knows, ``bottui-api-key`` and
# ``bottui-access-token``, as the environment variables they stand for
# (``BOTTUI_API_KEY``, ``BOTTUI_ACCESS_TOKEN``), into a mapping kept in
# memory (never ``os.environ``, so no child process inherits them). A profile's
# own tokens (:mod:`bottui.store.token_sources`) come from
# ``bottui-api-key-<PROFILE>`` and ``bottui-access-token-<PROFILE>``, read as
# ``BOTTUI_API_KEY_<PROFILE>`` / ``BOTTUI_ACCESS_TOKEN_<PROFILE>`` (the name
# upper-cased, ``[A-Za-z0-9_]`` only); two files that would give the same
# variable (``-prod`` and ``-PROD``) are refused, never guessed.
#
# Read safely: only those names, no symbolic link followed
# (``O_NOFOLLOW``), a regular file of at most 4 KiB, one line (the newline at
# its end dropped). Anything else is refused with a message that names the
# file, never its content.


#: Credential file name -> the environment variable it stands for.
CREDENTIALS: Final = {
    "bottui-api-key": "BOTTUI_API_KEY",
    "bottui-access-token": "BOTTUI_ACCESS_TOKEN",
}


_MAX: Final = 4096

#: A profile's own credential: ``bottui-api-key-<PROFILE>`` (name upper-cased in the variable).
_PER_PROFILE: Final = re.compile(r"(bottui-api-key|bottui-access-token)-([A-Za-z0-9_]+)")


class CredentialFileRefused(StoreError):
    """A credential file that is not a small regular file of one line (exit 2)."""


def _names(directory: str | os.PathLike[str]) -> dict[str, str]:
    """Credential file name -> variable, for the files ``directory`` holds."""
    names = dict(CREDENTIALS)
    try:
        listed = sorted(os.listdir(directory))
    except OSError:
        return names
    claimed: dict[str, str] = {}
    for name in listed:
        match = _PER_PROFILE.fullmatch(name)
        if match is None:
            continue
        variable = f"{CREDENTIALS[match.group(1)]}_{match.group(2).upper()}"
        if variable in claimed:
            raise CredentialFileRefused(
                f"Credentials {claimed[variable]} and {name} refused",
                f"both would be {variable}: keep one (a token must never go to another project)",
            )
        claimed[variable] = name
        names[name] = variable
    return names


def read_credentials(directory: str | os.PathLike[str]) -> dict[str, str]:
    """The tokens in ``directory`` (``$CREDENTIALS_DIRECTORY``) by environment variable name."""
    found: dict[str, str] = {}
    for name, variable in _names(directory).items():
        path = Path(directory) / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise CredentialFileRefused(
                f"Cannot read the credential {name}", f"{path}: {exc.strerror}"
            ) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX:
                raise CredentialFileRefused(
                    f"Credential {name} refused",
                    f"{path} must be a regular file of at most {_MAX} bytes",
                )
            data = os.read(fd, _MAX + 1)
        finally:
            os.close(fd)
        text = data.decode("utf-8", errors="replace").removesuffix("\n").removesuffix("\r")
        if not text or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
            raise CredentialFileRefused(
                f"Credential {name} refused", f"{path} must hold one token on one line"
            )
        found[variable] = text
    return found

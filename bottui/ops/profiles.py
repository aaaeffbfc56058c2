"""Profile edits both faces share: check, add, use, remove, and the TUI's own settings.

``bottui profile add|edit|use|remove|list`` (:mod:`bottui.cli.profiles`) and the
TUI's first run (:mod:`bottui.tui.screens.projects`), theme choice and
threshold settings call these; neither face edits ``config.toml`` itself.
Every edit is awaited on :class:`~bottui.store.config.async_facade.AsyncConfigStore`
(the store executor's daemon threads), never run on an event loop.

What an operator enters is checked here, the same for both faces, and
refused with :class:`~bottui.api.errors.ValidationError` (exit 2; a form
shows it under the field): a profile name (not blank, no control
characters, not taken when the caller says which are), a base URL (http(s)
with a host; plain ``http://`` only to loopback; a port in 1..65535; no
credentials, query or fragment). A name already taken at write time is the
store's :class:`~bottui.store.store_errors.ProfileExists`, an unknown one its
:class:`~bottui.store.store_errors.ProfileNotFound`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING

import msgspec

from bottui.api.errors import RefusedError, ValidationError
from bottui.ops.session import Session, Settings
from bottui.plaintext import has_control
from bottui.store.config.config_model import (
    Config,
    Profile,
    ProjectSettings,
    validate_base_url,
    validate_profile_name,
    validate_store_url,
)
from bottui.store.store_errors import InvalidValue, ProfileNotFound, no_such_profile
from bottui.store.token_sources import scopes_of

if TYPE_CHECKING:
    from bottui.store.config.async_facade import AsyncConfigStore

#: What a form says when the profile name it was given is taken.
NAME_TAKEN = "A profile of that name exists already."


@contextlib.contextmanager
def _refusals_of(field: str) -> Iterator[None]:
    """Re-raise a check's refusal as the one :class:`ValidationError`, its words kept."""
    try:
        yield
    except ValidationError:
        raise
    except (RefusedError, InvalidValue) as exc:
        raise ValidationError(field, exc.details, title=exc.title) from None


# -- checks (no I/O: a form calls them as the operator types) ---------------------------


def check_profile_name(name: str, existing: Collection[str] = ()) -> str:
    """``name`` if it can name a new profile: not blank, no control characters, not in ``existing``.

    Raises:
        ValidationError: field ``profile name``.
    """

    with _refusals_of("profile name"):
        validate_profile_name(name)
    if name in existing:
        raise ValidationError("profile name", NAME_TAKEN)
    return name


def check_profile_url(raw: str) -> str:
    """The base URL a profile keeps, from what was typed (trimmed, no trailing slash).

    The rules of ``--base-url`` (:func:`bottui.api.transport.check_base_url`) and
    of the config file (:func:`bottui.store.config.config_model.validate_base_url`).

    Raises:
        ValidationError: field ``base URL``.
    """
    from bottui.api.transport import check_base_url  # imports httpx (~170 ms): only to check a URL

    with _refusals_of("base URL"):
        return validate_base_url(check_base_url(raw))


def check_store_url(raw: str) -> str | None:
    """The team store URL a profile keeps (None when blank: no team store).

    The rules of ``config.toml`` (:func:`bottui.store.config.config_model.validate_store_url`):
    a ``postgresql://`` URL without a password.

    Raises:
        ValidationError: field ``store URL``.
    """

    text = raw.strip()
    if not text:
        return None
    with _refusals_of("store URL"):
        return validate_store_url(text)


def check_operator(raw: str) -> str | None:
    """Who a profile's changes are journaled as (None when blank: the config's, or user@host).

    Raises:
        ValidationError: field ``operator`` (control characters).
    """

    text = raw.strip()
    if not text:
        return None
    if has_control(text):
        raise ValidationError("operator", "An operator cannot hold control characters.")
    return text


def new_profile(
    name: str,
    base_url: str,
    *,
    read_only: bool = False,
    protected: bool = False,
    account: str | None = None,
    project: str | None = None,
    require_reason: bool = False,
    store: str = "",
    operator: str = "",
    existing: Collection[str] = (),
    keep: Profile | None = None,
) -> Profile:
    """A checked profile (name, base URL, store URL, operator), ready for :func:`add_profile`.

    ``store`` and ``operator`` are as typed (blank: none). With ``keep`` (an
    edit), that profile's defaults and per-project threshold settings are
    kept and ``account``/``project`` are ignored.

    Raises:
        ValidationError: the first field refused.
    """

    check_profile_name(name, existing)
    url = check_profile_url(base_url)
    store_url = check_store_url(store)
    who = check_operator(operator)
    with _refusals_of("profile"):
        return Profile(
            name=name,
            base_url=url,
            read_only=read_only,
            protected=protected,
            account=keep.account if keep is not None else account,
            project=keep.project if keep is not None else project,
            projects=dict(keep.projects) if keep is not None else {},
            operator=who,
            require_reason=require_reason,
            store=store_url,
            # Not in the profile form: an edit keeps what config.toml says.
            late_limit_minutes=keep.late_limit_minutes if keep is not None else None,
            token_encoding=keep.token_encoding if keep is not None else "raw",
        )


# -- edits (awaited on the store executor) ------------------------------------------------


async def read_config(store: AsyncConfigStore) -> Config:
    """The profiles and the current one (``profile list``, the first-run form)."""
    return await store.load()


async def add_profile(
    store: AsyncConfigStore,
    profile: Profile,
    *,
    replace: bool = False,
    make_current: bool = False,
) -> Config:
    """Add ``profile``; make it current if asked or if no profile is; the config after.

    Raises:
        ProfileExists: the name is taken and ``replace`` is false.
    """
    await store.add_profile(profile, replace=replace)
    config = await store.load()
    if make_current or config.current is None:
        await store.use(profile.name)
        config = msgspec.structs.replace(config, current=profile.name)
    return config


class ProfileChanges(msgspec.Struct, frozen=True):
    """What ``profile edit`` changes; ``None``: kept as it is ("" clears store/operator)."""

    base_url: str | None = None
    read_only: bool | None = None
    protected: bool | None = None
    require_reason: bool | None = None
    store: str | None = None
    operator: str | None = None
    account: str | None = None
    project: str | None = None


async def edit_profile(store: AsyncConfigStore, name: str, changes: ProfileChanges) -> Profile:
    """Change some options of the profile ``name``, checked as when added; the profile after.

    What is not named in ``changes`` stays, and so do the per-project
    threshold settings and the options neither face edits (late limit,
    token encoding). The TUI's profile form gives the same profile.

    Raises:
        ProfileNotFound: there is no such profile.
        ValidationError: a value refused (the first).
    """

    config = await store.load()
    old = config.profiles.get(name)
    if old is None:
        raise ProfileNotFound(*no_such_profile(name, config.profiles))
    profile = new_profile(
        name,
        changes.base_url if changes.base_url is not None else old.base_url,
        read_only=_either(changes.read_only, old.read_only),
        protected=_either(changes.protected, old.protected),
        require_reason=_either(changes.require_reason, old.require_reason),
        store=changes.store if changes.store is not None else old.store or "",
        operator=changes.operator if changes.operator is not None else old.operator or "",
        keep=old,
    )
    with _refusals_of("profile"):
        profile = msgspec.structs.replace(
            profile,
            account=changes.account if changes.account is not None else old.account,
            project=changes.project if changes.project is not None else old.project,
        )
    if profile != old:
        await store.add_profile(profile, replace=True)
    return profile


def _either(given: bool | None, kept: bool) -> bool:
    return kept if given is None else given


async def use_profile(store: AsyncConfigStore, name: str) -> None:
    """Make ``name`` the current profile (ProfileNotFound if there is none)."""
    await store.use(name)


async def remove_profile(store: AsyncConfigStore, name: str) -> None:
    """Remove the profile ``name`` (ProfileNotFound if there is none)."""
    await store.remove_profile(name)


async def remove_other_profile(session: Session, name: str) -> Config:
    """Remove a profile the session does not work under; the config after.

    Raises:
        RefusedError: ``name`` is the session's own profile (switch first).
        ProfileNotFound: there is no such profile.
    """
    if name == session.settings.profile_name:
        raise RefusedError(
            "This is the profile in use",
            "Switch to another profile first, then remove this one.",
        )
    await session.config_store.remove_profile(name)
    return await session.config_store.load()


async def settings_of(session: Session, name: str) -> Settings:
    """The settings the session would work under with the profile ``name``, read afresh.

    The environment (``BOTTUI_BASE_URL``, ``BOTTUI_OPERATOR``,
    ``BOTTUI_STORE_URL``) still wins over the profile, and a session started
    ``--read-only`` stays read-only; the other command-line flags named the
    profile the app started on and are not carried over.

    Raises:
        RefusedError: no profile of that name (removed meanwhile).
    """

    config = await session.config_store.load()
    settings = Settings.resolve(config, profile=name, read_only=session.pinned_read_only)
    # The profiles read afresh: BOTTUI_API_KEY_<PROFILE> of one added meanwhile counts (#27).
    session.tokens.scopes = scopes_of(config)
    return settings


async def switch_profile(session: Session, name: str) -> Settings:
    """Make ``name`` the current profile in ``config.toml``; the settings to work under.

    The caller applies them (:meth:`Session.switch_settings`) on its own loop.
    Made current in the file too, as ``bottui profile use`` does: the next
    start opens on it.
    """
    settings = await settings_of(session, name)
    await session.config_store.use(name)
    return settings


async def create_first_profile(session: Session, profile: Profile) -> Settings:
    """The TUI's first run: add ``profile``, make it current; the session's settings under it.

    What came from the command line (``--read-only``, ``--account``,
    ``--project``) still holds. The caller applies the settings
    (:meth:`Session.update_settings`) on its own loop.
    """

    old = session.settings
    config = await add_profile(session.config_store, profile, make_current=True)
    session.tokens.scopes = scopes_of(config)  # its BOTTUI_API_KEY_<PROFILE> counts now
    return Settings.resolve(
        config, account=old.account, project=old.project, read_only=old.read_only
    )


async def remember_theme(store: AsyncConfigStore, name: str) -> None:
    """Keep the Textual theme the operator chose for the next start."""
    await store.set_theme(name)


async def save_project_settings(
    session: Session, account: str, project: str, settings: ProjectSettings
) -> Settings:
    """Save a project's threshold range and direction in the session's profile.

    The session works under them at once; its new settings are returned.

    Raises:
        RefusedError: the session has no profile to save them in.
    """
    profile = session.settings.profile_name
    if profile is None:
        raise RefusedError(
            "No profile",
            "Threshold settings are saved in a profile, and this session has none. "
            "Add one with: bottui profile add NAME --base-url URL",
        )
    await session.config_store.set_project_settings(profile, account, project, settings)
    projects = dict(session.settings.projects)
    projects[(account, project)] = settings
    updated = msgspec.structs.replace(session.settings, projects=projects)
    session.update_settings(updated)
    return updated

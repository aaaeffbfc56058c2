"""One working session: resolved settings, the stores, and the API client.

The CLI builds one per command, the TUI one per run. Stores open lazily, so
a command that needs no journal never touches SQLite, and a damaged store
becomes a warning instead of a failure: the change still goes ahead.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

from bottui.api.errors import CredentialsError, RefusedError
from bottui.api.tokens import AccessToken, ProjectToken, TokenEncoding, check_token
from bottui.ops import confirmation
from bottui.plaintext import clean
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import StoreError
from bottui.store.token_sources import scopes_of
from bottui.store.utc import Clock

if TYPE_CHECKING:
    from bottui.api.client import BotProtectionClient
    from bottui.ops.team_push import TeamSync
    from bottui.store.config.async_facade import AsyncConfigStore
    from bottui.store.config.config_model import Config, Profile, ProjectSettings
    from bottui.store.inventory.inventory_store import SqliteInventoryStore
    from bottui.store.journal.journal_store import SqliteJournalStore
    from bottui.store.journal.journal_timed import TimedStore
    from bottui.store.team.pg_store import TeamStore
    from bottui.store.team.read_rows import Unreadable

DEFAULT_PROFILE = "default"
#: Who sends a change: a person (either face), or an executor of due reverts.
ChangeOrigin = Literal["operator", "executor"]


class Settings(msgspec.Struct, frozen=True):
    """Where and how this session works, after flags, environment and profile.

    Precedence: command-line flag, then environment (``BOTTUI_BASE_URL``),
    then the profile (``--profile`` or the config's current one).
    """

    profile_name: str | None
    base_url: str | None
    account: str | None = None
    project: str | None = None
    read_only: bool = False
    protected: bool = False
    projects: Mapping[tuple[str, str], ProjectSettings] = msgspec.field(default_factory=dict)
    #: Who makes the changes, as journaled: ``BOTTUI_OPERATOR``, then the
    #: profile's ``operator``, then the config's; None: the journal's
    #: ``user@host``. Untrusted text, kept as given.
    operator: str | None = None
    #: Refuse a change without a reason (the profile's ``require_reason``).
    require_reason: bool = False
    #: The team store's URL (``BOTTUI_STORE_URL``, then the profile's
    #: ``store``), unchecked; None: no team store (always in the demo).
    store_url: str | None = None
    #: Minutes a timed change's revert may be late and still be sent without
    #: ``--late-ok`` (the profile's ``late_limit_minutes``; None: 60).
    late_limit_minutes: int | None = None
    #: How tokens travel in ``X-Api-Key`` (the profile's ``token_encoding``).
    token_encoding: TokenEncoding = "raw"

    @property
    def inventory_scope(self) -> str:
        """The profile name the inventory files this session's rows under."""
        return self.profile_name or DEFAULT_PROFILE

    def project_settings(self, account: str, project: str) -> ProjectSettings:
        """Threshold range and direction of a project (defaults when unset)."""
        settings = self.projects.get((account, project))
        if settings is not None:
            return settings
        # Imported here: the demo starts without the config model (~2 ms).
        from bottui.store.config.config_model import ProjectSettings

        return ProjectSettings()

    @classmethod
    def resolve(
        cls,
        config: Config,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        account: str | None = None,
        project: str | None = None,
        read_only: bool = False,
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        """Combine flags, environment and profile into settings."""
        env = os.environ if environ is None else environ
        chosen: Profile | None = None
        if profile is not None:
            chosen = config.profiles.get(profile)
            if chosen is None and profile == DEFAULT_PROFILE:
                # What is journaled with no profile goes under "default": that name
                # names the session without a profile until a profile takes it (#27).
                pass
            elif chosen is None:
                from bottui.store.store_errors import no_such_profile

                raise RefusedError(*no_such_profile(profile, config.profiles))
        else:
            chosen = config.profile()
        url = base_url or env.get("BOTTUI_BASE_URL") or (chosen.base_url if chosen else None)
        operator = next(
            (
                who
                for who in (
                    env.get("BOTTUI_OPERATOR"),
                    chosen.operator if chosen else None,
                    config.operator,
                )
                if who is not None and who.strip()
            ),
            None,
        )
        from bottui.store.team import resolve_store_url

        return cls(
            store_url=resolve_store_url(chosen.store if chosen else None, env),
            profile_name=chosen.name if chosen else None,
            base_url=url or None,
            account=account or (chosen.account if chosen else None),
            project=project or (chosen.project if chosen else None),
            read_only=read_only or (chosen.read_only if chosen else False),
            protected=chosen.protected if chosen else False,
            projects=dict(chosen.projects) if chosen else {},
            operator=operator,
            require_reason=chosen.require_reason if chosen else False,
            late_limit_minutes=chosen.late_limit_minutes if chosen else None,
            token_encoding=_encoding(chosen.token_encoding) if chosen else "raw",
        )


def _encoding(value: str) -> TokenEncoding:
    """A profile's ``token_encoding`` (validated by the config model)."""
    return "base64" if value == "base64" else "raw"


ClientFactory = Callable[[str], "BotProtectionClient"]


def _default_client(base_url: str) -> BotProtectionClient:
    from bottui.api.client import BotProtectionClient

    return BotProtectionClient(base_url)


class Session:
    """Settings plus lazily opened stores and one API client.

    Args:
        locations: Where the config, inventory and journal live.
        settings: The resolved settings.
        tokens: The token store (environment, then keyring).
        client_factory: Makes the API client for a base URL (tests and the
            demo pass one with their own transport).
        clock: Current UTC time for the stores (tests fix it for snapshots).
    """

    def __init__(
        self,
        locations: Locations,
        settings: Settings,
        tokens: TokenStore,
        *,
        client_factory: ClientFactory = _default_client,
        clock: Clock | None = None,
    ) -> None:
        self.locations = locations
        self.clock = clock
        self.settings = settings
        self.tokens = tokens
        self._client_factory = client_factory
        self._client: BotProtectionClient | None = None
        self._retired: list[BotProtectionClient] = []
        self._retired_stores: list[SqliteInventoryStore] = []
        self._journal_store: SqliteJournalStore | None = None
        self._timed_store: TimedStore | None = None
        self._inventory_store: SqliteInventoryStore | None = None
        self._config_store: AsyncConfigStore | None = None
        #: The team store of the live feed and the collision check (connected once).
        self._team_store: TeamStore | None = None
        #: The push of this machine's journal to the team store (its own connection).
        self._team: TeamSync | None = None
        self._team_tried = False
        #: Messages for the operator that do not stop the work (stderr / toast).
        self.warnings: list[str] = []
        #: What :meth:`warn_once` said already (a row skipped is said once a session).
        self._said_once: set[str] = set()
        #: Changes sent and not yet answered and journaled, by origin (a face asks
        #: before quitting over an operator's: its outcome would be left unknown;
        #: an executor's due revert is waited for, not asked about).
        self.in_flight: Counter[ChangeOrigin] = Counter()
        #: Called after inventory facts were queued for the team store (the TUI
        #: kicks its push; a command pushes at its end anyway).
        self.on_shared: Callable[[], None] | None = None
        #: Called after a team store row bottui cannot read was skipped (and made a
        #: warning): the TUI shows the warning now; a command prints it at its end.
        self.on_skipped: Callable[[], None] | None = None
        #: Read-only whatever the profile says (``--read-only``): kept when the
        #: TUI switches profile (:func:`bottui.ops.profiles.settings_of`).
        self.pinned_read_only = False

    @property
    def changes_in_flight(self) -> int:
        """Changes sent and not yet answered and journaled, whoever sent them."""
        return self.in_flight.total()

    def __repr__(self) -> str:
        # settings.base_url, not self.base_url: a repr must not raise when there is none.
        settings = self.settings
        return f"Session(profile={settings.profile_name!r}, base_url={settings.base_url!r})"

    def update_settings(self, settings: Settings) -> None:
        """Work under new settings from now on (the TUI's first run created a profile).

        The inventory is reopened when its profile scope changes; a client of
        another base URL is dropped (closed by :meth:`aclose`).
        """
        old, self.settings = self.settings, settings
        if old.inventory_scope != settings.inventory_scope and self._inventory_store is not None:
            self._retired_stores.append(self._inventory_store)
            self._inventory_store = None
        if old.base_url != settings.base_url and self._client is not None:
            self._retired.append(self._client)
            self._client = None

    async def switch_settings(self, settings: Settings) -> None:
        """Work under another profile's settings from now on (the TUI's profile switch).

        As :meth:`update_settings`, and the team store of the old settings is
        closed, so the next use opens the new profile's (or none). The push
        thread, when the TUI handed the store over, is the caller's to stop first.
        """
        shared, self._team_store = self._team_store, None
        team, self._team = self._team, None
        self._team_tried = False
        self.on_shared = None
        self.update_settings(settings)
        if shared is not None:
            await shared.close()
        if team is not None:
            await team.close()

    # -- where ------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The base URL, or a refusal naming the three ways to give one."""
        url = self.settings.base_url
        if not url:
            raise RefusedError(
                "No base URL",
                "pass --base-url, set BOTTUI_BASE_URL, or add a profile "
                "(bottui profile add NAME --base-url URL)",
            )
        return url

    def scope(self, account: str | None, project: str | None = None) -> tuple[str, str | None]:
        """The account (required) and project to act on, flags over profile defaults."""
        acc = account or self.settings.account
        if not acc:
            raise RefusedError("No account", "pass --account or set one in the profile")
        return acc, project or self.settings.project

    def project_scope(self, account: str | None, project: str | None) -> tuple[str, str]:
        """The account and project to act on; both required."""
        acc, proj = self.scope(account, project)
        if not proj:
            raise RefusedError("No project", "pass --project or set one in the profile")
        return acc, proj

    # -- guards -----------------------------------------------------------------

    def check_may_change(self, *, confirmed: bool, reason: str | None = None) -> None:
        """Refuse a change under a read-only profile, without a reason where one
        is required, or under a protected one unconfirmed.

        The rule itself lives in :mod:`bottui.ops.confirmation` (planning uses it too).
        """
        confirmation.enforce(self.settings, confirmed=confirmed, reason=reason)

    # -- tokens -----------------------------------------------------------------

    async def access_token(self, account: str) -> AccessToken:
        """The personal access token for ``account``, or CredentialsError."""
        base = self.base_url
        token = await self.tokens.personal_async(base, account)
        if token is None:
            raise CredentialsError(
                "No personal access token",
                f"for account {clean(account)!r}: run "
                f"`{self.token_command('personal', account)}` or set BOTTUI_ACCESS_TOKEN",
            )
        check_token(token, self.settings.token_encoding)  # before anything is journaled
        return token

    async def project_token(self, account: str, project: str) -> ProjectToken:
        """The project API token for ``account``/``project``, or CredentialsError."""
        base = self.base_url
        token = await self.tokens.project_async(base, account, project)
        if token is None:
            raise CredentialsError(
                "No project API token",
                f"for project {clean(project)!r}: run "
                f"`{self.token_command('project', account, project)}` or set BOTTUI_API_KEY "
                "(BOTTUI_API_KEY_<PROFILE> for one profile's project)",
            )
        check_token(token, self.settings.token_encoding)  # before anything is journaled
        return token

    def token_command(self, kind: str, account: str, project: str | None = None) -> str:
        """The ``bottui token set`` line that stores the missing token: real ids, shell-quoted.

        Its profile (or base URL) too: a token is kept per base URL, and the
        line must store it where this session looks. Ids are cleaned first:
        a copied line must not carry control characters into the shell.
        """
        import shlex

        words = ["bottui", "token", "set", kind]
        if self.settings.profile_name is not None:
            words += ["--profile", self.settings.profile_name]
        elif self.settings.base_url is not None:
            words += ["--base-url", self.settings.base_url]
        words += ["--account", account]
        if project is not None:
            words += ["--project", project]
        return shlex.join(clean(word) for word in words)

    # -- the client -------------------------------------------------------------

    def client(self) -> BotProtectionClient:
        """The API client of this session's base URL (made once)."""
        if self._client is None:
            self._client = self._client_factory(self.base_url)
            self._client.token_encoding = self.settings.token_encoding
        return self._client

    async def close_clients(self) -> None:
        """Close the API client and those of earlier base URLs: their connections are
        bound to the running event loop, so a face closes them before its loop ends
        (the next :meth:`client` makes a new one)."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()
        while self._retired:
            await self._retired.pop().aclose()

    async def aclose(self) -> None:
        """Close the clients and the stores."""
        await self.close_clients()
        stores: list[SqliteJournalStore | SqliteInventoryStore] = [*self._retired_stores]
        self._retired_stores = []
        if self._journal_store is not None:
            stores.append(self._journal_store)
            self._journal_store = None
        if self._inventory_store is not None:
            stores.append(self._inventory_store)
            self._inventory_store = None
        for store in stores:
            await store.close()
        if self._timed_store is not None:
            timed, self._timed_store = self._timed_store, None
            await timed.close()
        if self._team_store is not None:
            shared, self._team_store = self._team_store, None
            await shared.close()
        if self._team is not None:
            team, self._team = self._team, None
            await team.close()

    # -- stores -----------------------------------------------------------------

    @property
    def journal_store(self) -> SqliteJournalStore:
        """The journal behind its async facade (every call off the event loop).

        Made on first use; nothing is opened until the first call, which runs
        on the store executor and raises ``JournalUnavailable`` there.
        """
        if self._journal_store is None:
            from bottui.store.journal.journal_store import SqliteJournalStore

            options: dict[str, Any] = {"clock": self.clock} if self.clock else {}
            self._journal_store = SqliteJournalStore.at(self.locations, **options)
        return self._journal_store

    @property
    def timed_store(self) -> TimedStore:
        """The timed changes in this journal (:mod:`bottui.ops.timed`), off the event loop."""
        if self._timed_store is None:
            from bottui.store.journal.journal_timed import TimedStore

            self._timed_store = TimedStore(self.locations.journal_file)
        return self._timed_store

    async def team(self) -> TeamSync | None:
        """The push of this journal to the team store (``None``: no store configured).

        A store that cannot even be named (a refused URL, the team extra not
        installed) is a warning, once: the work goes ahead on the local
        journal alone.
        """
        if self._team is None and not self._team_tried and self.settings.store_url:
            self._team_tried = True
            from bottui.ops.team_push import TeamSync, open_team_store_url

            try:
                store = await open_team_store_url(self.settings.store_url, os.environ, self.tokens)
                store.skips.on_skip = self.skipped
                self._team = TeamSync(self.locations.journal_file, store)
            except StoreError as exc:
                self.warn(f"team journal: {exc.title}")
        return self._team

    def hand_over_team(self) -> None:
        """The push thread owns the team store from now on (it closes it; :meth:`aclose` not).

        A push abandoned at the end of a command may still hold the store on
        its thread: closing it from here would wait on that thread's lock.
        """
        self._team = None

    @property
    def inventory_store(self) -> SqliteInventoryStore:
        """This profile's inventory behind its async facade (every call off the event loop)."""
        if self._inventory_store is None:
            from bottui.store.inventory.inventory_store import SqliteInventoryStore

            options: dict[str, Any] = {"clock": self.clock} if self.clock else {}
            self._inventory_store = SqliteInventoryStore.at(
                self.locations, self.settings.inventory_scope, **options
            )
        return self._inventory_store

    async def team_store(self) -> TeamStore | None:
        """The team store (made once, connecting on first use); None: none configured.

        Raises :class:`~bottui.store.store_errors.StoreError` when the URL is
        refused or team mode is not installed.
        """
        url = self.settings.store_url
        if not url:
            return None
        if self._team_store is None:
            from bottui.ops.team_push import open_team_store_url

            self._team_store = await open_team_store_url(url, os.environ, self.tokens)
            self._team_store.skips.on_skip = self.skipped
        return self._team_store

    @property
    def config_store(self) -> AsyncConfigStore:
        """``config.toml`` behind its async facade (edits off the event loop)."""
        if self._config_store is None:
            from bottui.store.config.async_facade import AsyncConfigStore

            self._config_store = AsyncConfigStore(self.locations)
        return self._config_store

    def warn(self, message: str) -> None:
        """Record a warning for the operator (printed or toasted by the face)."""
        if message not in self.warnings:
            self.warnings.append(message)

    def warn_once(self, message: str) -> None:
        """:meth:`warn`, but once in this session's life (what every read would say again)."""
        if message not in self._said_once:
            self._said_once.add(message)
            self.warn(message)

    def skipped(self, row: Unreadable) -> None:
        """A team store row bottui cannot read was skipped: one warning naming it."""
        self.warn_once(row.line)
        if self.on_skipped is not None:
            self.on_skipped()

    def take_warnings(self) -> list[str]:
        """The warnings so far, emptied."""
        out, self.warnings = self.warnings, []
        return out


class CommonOptions(Protocol):
    """The common options of the command line (``--profile``, ``--base-url``, ...)."""

    profile: str | None
    base_url: str | None
    account: str | None
    project: str | None
    read_only: bool


def settings_from_options(
    config: Config, options: CommonOptions, environ: Mapping[str, str] | None = None
) -> Settings:
    """The options over the environment and the config (:meth:`Settings.resolve`)."""
    return Settings.resolve(
        config,
        profile=options.profile,
        base_url=options.base_url,
        account=options.account,
        project=options.project,
        read_only=options.read_only,
        environ=environ,
    )


def session_from_options(locations: Locations, config: Config, options: CommonOptions) -> Session:
    """A command's or the TUI's session: the options over the config, tokens in the keyring."""
    settings = settings_from_options(config, options)
    session = Session(locations, settings, TokenStore(scopes=scopes_of(config)))
    session.pinned_read_only = options.read_only
    return session

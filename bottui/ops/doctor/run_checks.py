"""Run every doctor check: the independent ones at once, each within its own time.

:func:`prepare` reads what a command reads before its event loop (config.toml,
the profile); :func:`run_checks` then runs the checks concurrently. Each
check has a budget: one that overruns it (a keyring, a network or a tmux
server that does not answer) becomes a problem saying so, and the others are
not held up, so the doctor ends in seconds even with a dead network. The
keyring, the API and the team store carry their own shorter timeouts; the
budget is the backstop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Final, TypeVar

import msgspec

from bottui.ops.config_checks import KnownBinding
from bottui.ops.doctor.checks import (
    Check,
    ProfileFacts,
    TmuxFacts,
    Verdict,
    check_api,
    check_config,
    check_keyring,
    check_osc52,
    check_profile,
    check_team_store,
    check_terminal,
    check_tmux,
    check_tokens,
    check_versions,
    inside_tmux,
    read_tmux,
    resolve_profile,
)
from bottui.ops.inventory_reads import read_all_projects
from bottui.ops.session import CommonOptions, Session
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from bottui.store.team.outbox import Scope


class Timeouts(msgspec.Struct, frozen=True):
    """Seconds each slow thing may take (a busy machine still answers well inside them)."""

    keyring: float = 3.0
    api: float = 4.0
    store: float = 3.0
    tmux: float = 2.0
    #: Added to a check's own timeouts to make its budget.
    margin: float = 1.5


DEFAULT_TIMEOUTS: Final = Timeouts()


class Prepared(msgspec.Struct, frozen=True):
    """What the checks start from, read before the event loop."""

    locations: Locations
    environ: Mapping[str, str]
    profile: ProfileFacts
    config: Check


def prepare(
    locations: Locations,
    options: CommonOptions,
    environ: Mapping[str, str],
    bindings: Iterable[KnownBinding],
) -> Prepared:
    """Read config.toml (and check it) and resolve the profile, as a command starts."""
    profile = resolve_profile(locations, options, environ)
    config = check_config(locations, bindings, profile.load_error)
    return Prepared(locations, environ, profile, config)


async def run_checks(prepared: Prepared, timeouts: Timeouts = DEFAULT_TIMEOUTS) -> list[Check]:
    """Every check, in a fixed order; they run concurrently where independent."""
    environ = prepared.environ
    settings = prepared.profile.settings
    tokens = TokenStore(environ, timeout=timeouts.keyring, scopes=prepared.profile.scopes)
    margin = timeouts.margin
    base_url = settings.base_url if settings is not None else None

    async def terminal_checks() -> list[Check]:
        facts: TmuxFacts | None = None
        if inside_tmux(environ):
            facts = await read_tmux(environ, timeout=timeouts.tmux)
        return [
            check_terminal(environ, facts),
            check_tmux(environ, facts),
            check_osc52(environ, facts),
        ]

    async def tokens_check() -> Check:
        if settings is None or not base_url:
            return Check("tokens", "Tokens", Verdict.SKIPPED, "no base URL: no tokens to look up")
        session = Session(prepared.locations, settings, tokens)
        try:
            projects = await _known_projects(session)
        finally:
            await session.aclose()
        return await check_tokens(tokens, base_url, projects, environ, prepared.profile.scopes)

    async def api_check() -> Check:
        if not base_url:
            return Check("api", "API at the base URL", Verdict.SKIPPED, "no base URL to probe")
        encoding = settings.token_encoding if settings is not None else "raw"
        return await check_api(
            base_url,
            timeout=timeouts.api,
            source=prepared.profile.source,
            token_encoding=encoding,
        )

    store_url = settings.store_url if settings is not None else None
    terminal, keyring, tokens_found, api, team = await asyncio.gather(
        _bounded(terminal_checks(), timeouts.tmux + margin, _late_terminal),
        _bounded(
            check_keyring(tokens, environ),
            timeouts.keyring + margin,
            _late("keyring", "Keyring", "the keyring to answer"),
        ),
        _bounded(
            tokens_check(),
            timeouts.keyring + 2 * margin,
            _late("tokens", "Tokens", "the keyring and the inventory to list the tokens"),
        ),
        _bounded(
            api_check(),
            timeouts.api + margin,
            _late("api", "API at the base URL", "the API's answer to one probe request"),
        ),
        _bounded(
            check_team_store(
                store_url,
                environ,
                tokens,
                prepared.locations.journal_file,
                timeout=timeouts.store,
                scope=None
                if settings is None or not settings.base_url
                else Scope(settings.base_url, settings.account, settings.project),
            ),
            timeouts.keyring + timeouts.store + margin,
            _late("team-store", "Team store", "the team store (PostgreSQL) to answer"),
        ),
    )
    return [
        check_versions(),
        *terminal,
        check_profile(prepared.profile),
        prepared.config,
        keyring,
        tokens_found,
        api,
        team,
    ]


async def _known_projects(session: Session) -> list[tuple[str, str]]:
    """The profile's default project, then those its inventory knows (if it has one yet)."""
    settings = session.settings
    found: dict[tuple[str, str], None] = {}
    if settings.account and settings.project:
        found[(settings.account, settings.project)] = None
    # No inventory file yet: nothing to read, and the doctor creates no file.
    if session.locations.inventory_file.exists():
        for entry in await read_all_projects(session):
            found[(entry.account, entry.project)] = None
    return list(found)


T = TypeVar("T")


async def _bounded(work: Awaitable[T], budget: float, late: Callable[[float], T]) -> T:
    """``work``'s result, or ``late(budget)`` when it does not finish within ``budget`` s."""
    try:
        async with asyncio.timeout(budget):
            return await work
    except TimeoutError:
        return late(budget)


def _late(check_id: str, title: str, waited_for: str) -> Callable[[float], Check]:
    """The result of a check that overran its budget: a warning that says what it waited for.

    Not a problem: nothing was found broken, only slow (a busy machine); a
    thing that is really unavailable fails its own, shorter, check first.
    """

    def late(budget: float) -> Check:
        return Check(
            check_id,
            title,
            Verdict.WARNING,
            f"timed out after {budget:g} s waiting for {waited_for}",
            "run bottui doctor again; if it persists, this is what hangs",
        )

    return late


def _late_terminal(budget: float) -> list[Check]:
    return [
        Check("terminal", "Terminal", Verdict.SKIPPED, f"not finished within {budget:g} s"),
        Check("tmux", "tmux", Verdict.WARNING, f"tmux did not answer within {budget:g} s"),
        Check("clipboard", "Clipboard (OSC 52)", Verdict.SKIPPED, "tmux did not answer"),
    ]

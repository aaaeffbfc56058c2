"""``bottui store migrate|status|sync``: the team store's schema and state, and the push.

The config is read once before the event loop (as every command starts);
the store is awaited on its async API. A store that cannot be reached says
so in one line (exit 2), never a traceback.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from typing import TYPE_CHECKING, Any, Final

import msgspec

from bottui.api.errors import EXIT_OK, EXIT_REFUSED
from bottui.cli.output import Output, UsageError
from bottui.cli.parser import Args, command, group_of
from bottui.ops.session import DEFAULT_PROFILE, settings_from_options
from bottui.ops.team_push import TeamSync, open_team_store
from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import Profile
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import ProfileNotFound, no_such_profile
from bottui.store.team.outbox import Scope
from bottui.store.team.team_errors import StoreUnavailable

if TYPE_CHECKING:
    from bottui.store.team.pg_store import TeamStore


def profile_of(args: Args) -> Profile | None:
    """The profile of ``--profile``, else the current one (``None``: none)."""
    config = ConfigStore(Locations.default()).load()
    if args.profile is not None:
        found = config.profile(args.profile)
        if found is None and args.profile == DEFAULT_PROFILE:
            return None  # the entries journaled without a profile (#27), as every command
        if found is None:
            raise ProfileNotFound(*no_such_profile(args.profile, config.profiles))
        return found
    return config.profile()


def cmd_store(args: Args, out: Output) -> int:
    """``bottui store migrate|status``."""
    profile = profile_of(args)
    return asyncio.run(_run(args, out, profile))


async def _run(args: Args, out: Output, profile: Profile | None) -> int:
    store = await open_team_store(profile, os.environ, TokenStore())
    if args.action == "sync":
        return await _sync(args, out, store)
    try:
        if args.action == "migrate":
            done = await store.migrate()
            where = store.target.where
            out.result(
                {
                    "where": where,
                    "before": done.before,
                    "after": done.after,
                    "applied": list(done.applied),
                },
                f"migrated {where} from version {done.before} to {done.after}"
                if done.applied
                else f"{where} is at schema version {done.after}: nothing to do",
            )
            return EXIT_OK
        status = await store.status()
        team = _team_sync(store)
        backlog = await team.backlog()
        status = msgspec.structs.replace(
            status, waiting=backlog.waiting, last_sync=backlog.last_sync
        )
        scope = share_scope(args)
        older = 0 if scope is None else await team.not_shared(scope)
    finally:
        await store.close()
    last = None if status.last_sync is None else status.last_sync.isoformat()
    schema = f"schema version: {status.schema_version} (this bottui: {status.app_schema_version})"
    if status.schema_version < status.app_schema_version:
        schema += ": run `bottui store migrate`"
    elif status.schema_version > status.app_schema_version:
        schema += ": upgrade bottui"
    lines = [
        f"store: {status.where}",
        f"role: {status.role} (PostgreSQL {status.server_version})",
        schema,
        f"entries waiting to be shared: {status.waiting}",
    ]
    if older:
        lines.append(
            f"entries journaled here before the store was configured, not shared: {older} "
            f"(`{backfill_command(args)}` shares those of {_scope_words(scope)})"
        )
    lines.append(f"last sync: {last or 'never'}")
    doc = {
        "where": status.where,
        "schemaVersion": status.schema_version,
        "appSchemaVersion": status.app_schema_version,
        "serverVersion": status.server_version,
        "role": status.role,
        "waiting": status.waiting,
        "notShared": older,
        "lastSync": last,
    }
    out.result(doc, lines)
    return EXIT_OK


def share_scope(args: Args) -> Scope | None:
    """What a backfill shares: the base URL, account and project of the store's
    profile, as a command resolves them (options, environment, profile); None
    without a base URL."""
    settings = settings_from_options(ConfigStore(Locations.default()).load(), args)
    if not settings.base_url:
        return None
    return Scope(settings.base_url, settings.account, settings.project)


def backfill_command(args: Args) -> str:
    """The one command that shares the older history with this store."""
    words = ["bottui", "store", "sync", "--backfill"]
    if args.profile is not None:
        words += ["--profile", args.profile]
    return shlex.join(words)


def _scope_words(scope: Scope | None) -> str:
    if scope is None:
        return "no profile"
    words = [scope.base_url]
    if scope.account is not None:
        words.append(f"account {scope.account}")
    if scope.project is not None:
        words.append(f"project {scope.project}")
    return ", ".join(words)


def _team_sync(store: TeamStore) -> TeamSync:
    return TeamSync(Locations.default().journal_file, store)


async def _sync(args: Args, out: Output, store: TeamStore) -> int:
    """``bottui store sync [--backfill]``: push now; exit 2 with one line when the store is down.

    ``--backfill`` also shares what this machine journaled before the store was
    configured, of the profile's base URL, account and project only.
    """
    team = _team_sync(store)
    backfilled: int | None = None
    try:
        state = await team.sync()
        if args.backfill and state.down is None:
            scope = share_scope(args)
            if scope is None:
                raise UsageError(
                    "--backfill needs a base URL",
                    "it shares only the entries of the store's base URL, account and project: "
                    "pass --profile NAME (or --base-url, --account, --project)",
                )
            try:
                backfilled = await team.backfill(scope)
            except StoreUnavailable as exc:
                state = msgspec.structs.replace(state, down=exc.title)
    finally:
        await team.close()
    last = None if state.last_sync is None else state.last_sync.isoformat()
    if out.as_json:
        out.document(
            {
                "where": store.target.where,
                "waiting": state.waiting,
                "lastSync": last,
                "error": state.down,
                **({} if backfilled is None else {"backfilled": backfilled}),
            }
        )
    elif state.down is None:
        if backfilled is not None:
            out.line(
                f"shared {backfilled} older entr{'y' if backfilled == 1 else 'ies'} of "
                f"{_scope_words(share_scope(args))}"
            )
        out.line(f"shared with {store.target.where}: {state.waiting} waiting, last sync {last}")
    if state.down is not None:
        out.message(f"warning: team journal: {state.waiting} not yet shared ({state.down})")
        return EXIT_REFUSED
    return EXIT_OK


def _add_store(commands: Any) -> None:
    store_examples = ["bottui store status --profile prod", "bottui store migrate --profile prod"]
    store_cmds = group_of(
        commands,
        "store",
        examples=store_examples,
        exits=[0, 2, 3, 130],
    )
    for name, purpose, examples in (
        ("migrate", "create or upgrade the shared schema (idempotent)", store_examples[1:]),
        (
            "status",
            "where the store is, its schema version, what waits to be shared",
            store_examples[:1],
        ),
        (
            "sync",
            "push the journal entries not yet shared, now",
            ["bottui store sync --profile prod"],
        ),
    ):
        command(
            store_cmds,
            name,
            purpose,
            examples=[*examples, f"bottui store {name} --json"],
            exits=[0, (2, "refused: no store configured, or unreachable"), 3, 130],
            common={"profile", "json"},
        )
    store_cmds.choices["sync"].add_argument(
        "--backfill",
        action="store_true",
        help="also share the history written before the store was configured: the "
        "entries of the profile's base URL, account and project only",
    )


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"store": _add_store}

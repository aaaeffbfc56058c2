"""``bottui store migrate|status|sync``: the team store's schema and state, and the push.

The config is read once before the event loop (as every command starts);
the store is awaited on its async API. A store that cannot be reached says
so in one line (exit 2), never a traceback.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import TYPE_CHECKING

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args
from bottui.store.config_model import Profile

if TYPE_CHECKING:
    from bottui.ops.team_sync import TeamSync
    from bottui.store.team.store import TeamStore


def profile_of(args: Args) -> Profile | None:
    """The profile of ``--profile``, else the current one (``None``: none)."""
    from bottui.store.config import ConfigStore
    from bottui.store.paths import Locations

    config = ConfigStore(Locations.default()).load()
    if args.profile is not None:
        from bottui.store.errors import ProfileNotFound

        found = config.profile(args.profile)
        if found is None:
            from bottui.store.profile_hint import no_such_profile

            raise ProfileNotFound(*no_such_profile(args.profile, config.profiles))
        return found
    return config.profile()


def cmd_store(args: Args, out: Output) -> int:
    """``bottui store migrate|status``."""
    profile = profile_of(args)
    return asyncio.run(_run(args, out, profile))


async def _run(args: Args, out: Output, profile: Profile | None) -> int:
    from bottui.ops.team_store import open_team_store
    from bottui.store.tokens import TokenStore

    store = await open_team_store(profile, os.environ, TokenStore())
    if args.action == "sync":
        return await _sync(args, out, store)
    try:
        if args.action == "migrate":
            done = await store.migrate()
            if out.as_json:
                out.document(
                    {
                        "where": store.target.where,
                        "before": done.before,
                        "after": done.after,
                        "applied": list(done.applied),
                    }
                )
            elif done.applied:
                out.line(
                    f"migrated {store.target.where} from version {done.before} to {done.after}"
                )
            else:
                out.line(f"{store.target.where} is at schema version {done.after}: nothing to do")
            return EXIT_OK
        status = await store.status()
        backlog = await _team_sync(store).backlog()
        status = dataclasses.replace(status, waiting=backlog.waiting, last_sync=backlog.last_sync)
    finally:
        await store.close()
    last = None if status.last_sync is None else status.last_sync.isoformat()
    if out.as_json:
        out.document(
            {
                "where": status.where,
                "schemaVersion": status.schema_version,
                "appSchemaVersion": status.app_schema_version,
                "serverVersion": status.server_version,
                "role": status.role,
                "waiting": status.waiting,
                "lastSync": last,
            }
        )
        return EXIT_OK
    out.line(f"store: {status.where}")
    out.line(f"role: {status.role} (PostgreSQL {status.server_version})")
    schema = f"schema version: {status.schema_version} (this bottui: {status.app_schema_version})"
    if status.schema_version < status.app_schema_version:
        schema += ": run `bottui store migrate`"
    elif status.schema_version > status.app_schema_version:
        schema += ": upgrade bottui"
    out.line(schema)
    out.line(f"entries waiting to be shared: {status.waiting}")
    out.line(f"last sync: {last or 'never'}")
    return EXIT_OK


def _team_sync(store: TeamStore) -> TeamSync:
    from bottui.ops.team_sync import TeamSync
    from bottui.store.paths import Locations

    return TeamSync(Locations.default().journal_file, store)


async def _sync(args: Args, out: Output, store: TeamStore) -> int:
    """``bottui store sync [--backfill]``: push now; exit 2 with one line when the store is down."""
    from bottui.api.errors import EXIT_REFUSED

    team = _team_sync(store)
    try:
        if args.backfill:
            await team.backfill()
        state = await team.sync()
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
            }
        )
    elif state.down is None:
        out.line(f"shared with {store.target.where}: {state.waiting} waiting, last sync {last}")
    if state.down is not None:
        out.message(f"warning: team journal: {state.waiting} not yet shared ({state.down})")
        return EXIT_REFUSED
    return EXIT_OK

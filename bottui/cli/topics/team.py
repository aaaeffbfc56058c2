"""``bottui help team``: the shared journal and inventory on PostgreSQL."""

from __future__ import annotations

from typing import Final

SUMMARY: Final = "team mode: one journal and inventory shared on PostgreSQL"

TEXT: Final = """\
Team mode shares the journal and the inventory of a profile on a PostgreSQL server
you already run; without it everything stays in local SQLite files.

  pip install 'bottui[team]'                      the driver (psycopg 3)
  [profiles.prod]                                 in config.toml
  store = "postgresql://alice@db.internal/bottui?sslmode=verify-full"
  bottui token set store --profile prod           the password, if libpq has none
  bottui store migrate --profile prod             create or upgrade the schema
  bottui store status --profile prod              version, what waits to be shared
  bottui store sync --profile prod [--backfill]   push now (and older history)
  bottui journal --follow                         teammates' changes as they happen
  bottui demo --team                              try it with a throwaway database

BOTTUI_STORE_URL wins over the profile's store. A URL carrying a password is
refused; off loopback the connection must use sslmode=verify-full. The local
journal is written first and pushed after, each entry once: a store that is down
costs a warning, never a change. What this machine journaled before the store
was configured still shows, marked "not shared", until `store sync --backfill`
shares it (the profile's base URL, account and project only). Entry numbers
are this machine's (#7, never renumbered); a teammate's entry shows a short form
of its event id (3f2a9c1b:17). docs/team.md says more.

A limiter or dimension a teammate changed in the last 15 minutes is named on
stderr before bottui sends. A protected profile asks again on a terminal after
the warning; a script (no terminal) is refused (exit 2) unless it passes
--ack-collision, which is journaled with the reason, naming what it acknowledged.
"""

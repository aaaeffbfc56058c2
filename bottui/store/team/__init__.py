"""Team mode: one shared journal and inventory on PostgreSQL.

The only package that imports psycopg, always lazily (inside functions), so
nothing here costs start-up time until a profile names a store. Modules:

* :mod:`.team_errors`: the failure words, each a :class:`~bottui.store.store_errors.StoreError`;
* :mod:`.store_target`: a store URL checked (no password, TLS off loopback) and
  resolved, the libpq service file read as libpq reads it;
* :mod:`.pg_schema`: the versioned schema, ``bottui store migrate`` and the version check;
* :mod:`.push_events`: the typed events a push carries (entries, outcomes, timed
  events, inventory facts), each unique by its id;
* :mod:`.outbox`: what this machine still has to push, one :class:`~.outbox.Batch` at a time;
* :mod:`.page_query`: the page filters and their SQL, and the collision warning's;
* :mod:`.read_rows`: a stored row read without trusting it (any role with INSERT
  wrote it): one bottui cannot read is skipped and said once, a time Python
  cannot hold loads as text;
* :mod:`.pg_store`: :class:`~bottui.store.team.pg_store.TeamStore`, the async API;
* :mod:`.local_server`: a throwaway PostgreSQL of our own (``bottui demo --team``, the tests).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

#: The environment variable that names the team store; it wins over the profile's.
ENV_STORE_URL: Final = "BOTTUI_STORE_URL"


def resolve_store_url(
    profile_store: str | None, environ: Mapping[str, str], *, demo: bool = False
) -> str | None:
    """The team store's URL: ``BOTTUI_STORE_URL``, else the profile's; ``None`` in the demo.

    Here, not in :mod:`.store_target`: every session asks, and a solo one must not
    import the target's checks to hear "none".
    """
    if demo:
        return None
    from_env = environ.get(ENV_STORE_URL, "").strip()
    if from_env:
        return from_env
    return profile_store or None

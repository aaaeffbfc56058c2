"""Team mode: one shared journal and inventory on PostgreSQL.

The only package that imports psycopg, always lazily (inside functions), so
nothing here costs start-up time until a profile names a store. Modules:

* :mod:`.errors`: what can go wrong, each a :class:`~bottui.store.errors.StoreError`;
* :mod:`.target`: a store URL checked (no password, TLS off loopback) and resolved;
* :mod:`.service_file`: the libpq service file, read as libpq reads it;
* :mod:`.schema` and :mod:`.migrate`: the versioned schema and ``bottui store migrate``;
* :mod:`.events`: what a push carries (entries and outcomes, each unique by its event id);
* :mod:`.query`: the page filters and their SQL;
* :mod:`.rows`, :mod:`.times` and :mod:`.unreadable`: a stored row read without
  trusting it (any role with INSERT wrote it): one bottui cannot read is skipped
  and said once, a time Python cannot hold loads as text;
* :mod:`.store`: :class:`~bottui.store.team.store.TeamStore`, the async API;
* :mod:`.outbox` and :mod:`.facts_outbox`: what this machine still has to push
  (journal entries, kept in the journal file; inventory facts, in their own file);
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

    Here, not in :mod:`.target` (which re-exports it): every session asks,
    and a solo one must not import the target's checks to hear "none".
    """
    if demo:
        return None
    from_env = environ.get(ENV_STORE_URL, "").strip()
    if from_env:
        return from_env
    return profile_store or None

"""Team mode: one shared journal and inventory on PostgreSQL.

The only package that imports psycopg, always lazily (inside functions), so
nothing here costs start-up time until a profile names a store. Modules:

* :mod:`.errors`: what can go wrong, each a :class:`~bottui.store.errors.StoreError`;
* :mod:`.target`: a store URL checked (no password, TLS off loopback) and resolved;
* :mod:`.service_file`: the libpq service file, read as libpq reads it;
* :mod:`.schema` and :mod:`.migrate`: the versioned schema and ``bottui store migrate``;
* :mod:`.events`: what a push carries (entries and outcomes, each unique by its event id);
* :mod:`.query`: the page filters and their SQL;
* :mod:`.store`: :class:`~bottui.store.team.store.TeamStore`, the async API;
* :mod:`.local_server`: a throwaway PostgreSQL of our own (``bottui demo --team``, the tests).
"""

"""Bulk revocation: the engine shared by the CLI (``revoke --from-file``) and the TUI.

The modules, in the order a run uses them:

* :mod:`~bottui.ops.bulk.input`: opening the input, the first pass over it (its
  SHA-256, its lines), and its ids read as a stream, validated and deduplicated
  (exactly, on disk: :mod:`bottui.store.seen_ids`);
* :mod:`~bottui.ops.bulk.engine`: :class:`BulkRevocation`, the run itself (each
  id sent as a single change is, over a pool of the run's size), what becomes
  of each id, and the dry run (first requests, counts; nothing sent);
* :mod:`~bottui.ops.bulk.journaling`: the run's identity and lock, its started
  and outcome records, ``--resume`` (the settled prefix, the covered lines);
* :mod:`~bottui.ops.bulk.report`: statuses, counters, progress snapshots, the
  summary, and their words;
* :mod:`~bottui.ops.bulk.results`: the ``--output`` file (CSV or JSON lines) and
  the TUI's spool of per-id results.
"""

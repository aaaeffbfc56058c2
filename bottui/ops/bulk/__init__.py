"""Bulk revocation: the engine shared by the CLI (``revoke --from-file``) and the TUI.

The modules, in the order a run uses them:

* :mod:`~bottui.ops.bulk.scan`: the first pass over the input (its SHA-256, its lines);
* :mod:`~bottui.ops.bulk.input`: the ids, read as a stream, validated and deduplicated
  (exactly, on disk: :mod:`bottui.store.seen_ids`);
* :mod:`~bottui.ops.bulk.plan`: the dry run (first requests, counts; nothing sent);
* :mod:`~bottui.ops.bulk.engine`: :class:`BulkRevocation`, the run itself, over
  :mod:`bottui.api.lean`'s request path;
* :mod:`~bottui.ops.bulk.settling`: what becomes of each id (status, records, result);
* :mod:`~bottui.ops.bulk.journal`: the run's identity, ``--resume``, started and outcome records;
* :mod:`~bottui.ops.bulk.meter`: counters, progress snapshots and the summary;
* :mod:`~bottui.ops.bulk.status`: the words and documents a run reports;
* :mod:`~bottui.ops.bulk.report`: those as lines of text;
* :mod:`~bottui.ops.bulk.results`: the ``--output`` file (CSV or JSON lines).

The names most callers need are re-exported here.
"""

from __future__ import annotations

from bottui.ops.bulk.engine import BulkRevocation
from bottui.ops.bulk.plan import BulkPlan, plan_bulk
from bottui.ops.bulk.status import (
    DEFAULT_CONCURRENCY,
    MAX_CONCURRENCY,
    UNKNOWN_LIKE,
    BulkProgress,
    BulkSummary,
    ItemResult,
    ItemStatus,
    check_concurrency,
    concurrency_note,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "MAX_CONCURRENCY",
    "UNKNOWN_LIKE",
    "BulkPlan",
    "BulkProgress",
    "BulkRevocation",
    "BulkSummary",
    "ItemResult",
    "ItemStatus",
    "check_concurrency",
    "concurrency_note",
    "plan_bulk",
]

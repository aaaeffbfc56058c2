"""The Journal's outcome filters: every outcome word the store knows belongs to exactly one."""

from __future__ import annotations

from collections import Counter

from bottui.ops.journal_view import OUTCOME_GROUPS
from bottui.store.journal.journal_records import Outcome


def test_every_outcome_is_in_exactly_one_filter_group() -> None:
    counts = Counter(word for group in OUTCOME_GROUPS.values() for word in group)
    assert {o.value: counts[o] for o in Outcome} == {o.value: 1 for o in Outcome}


def test_an_id_a_bulk_run_never_sent_counts_as_failed() -> None:
    assert Outcome.NOT_SENT in OUTCOME_GROUPS["failed"]
